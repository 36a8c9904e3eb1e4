//! An independent liveness analysis over the generated AST: for each ask site, the user locals
//! live after it on some path. Behaviour equality cannot see over-carrying (correct but bloated
//! tokens, spurious "not serializable" errors); comparing this with the macro's carried sets can.
//!
//! The AST becomes a small control-flow graph (one node per evaluation with its uses and defs),
//! solved backwards to a fixpoint. It shares nothing with the macro's own analysis.

use std::collections::{BTreeMap, BTreeSet};

use super::ast::*;

type Node = usize;

#[derive(Default)]
struct Graph {
    uses: Vec<Vec<VarId>>,
    defs: Vec<Vec<VarId>>,
    succ: Vec<Vec<Node>>,
    sites: BTreeMap<usize, Node>,
}

struct LoopTargets {
    label: u32,
    head: Node,
    exit: Node,
}

struct Builder {
    g: Graph,
    loops: Vec<LoopTargets>,
    end: Node,
}

/// For each ask site, the locals (by [`VarId`]) live right after its answers are bound.
pub fn live_after_asks(program: &Program) -> BTreeMap<usize, BTreeSet<VarId>> {
    let mut b = Builder {
        g: Graph::default(),
        loops: Vec::new(),
        end: 0,
    };
    b.end = b.node(Vec::new(), Vec::new(), Vec::new());
    let result = b.node(uses(&program.result), Vec::new(), vec![b.end]);
    b.stmts(&program.body, result);
    let live_out = solve(&b.g);
    b.g.sites
        .iter()
        .map(|(&site, &node)| (site, live_out[node].clone()))
        .collect()
}

fn solve(g: &Graph) -> Vec<BTreeSet<VarId>> {
    let n = g.succ.len();
    let mut live_in: Vec<BTreeSet<VarId>> = vec![BTreeSet::new(); n];
    let mut live_out: Vec<BTreeSet<VarId>> = vec![BTreeSet::new(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for node in (0..n).rev() {
            let out: BTreeSet<VarId> = g.succ[node]
                .iter()
                .flat_map(|&s| live_in[s].iter().copied())
                .collect();
            let mut inn: BTreeSet<VarId> = out
                .iter()
                .copied()
                .filter(|v| !g.defs[node].contains(v))
                .collect();
            inn.extend(g.uses[node].iter().copied());
            if inn != live_in[node] || out != live_out[node] {
                live_in[node] = inn;
                live_out[node] = out;
                changed = true;
            }
        }
    }
    live_out
}

fn uses(e: &Expr) -> Vec<VarId> {
    let mut out = Vec::new();
    collect(e, &mut out);
    out
}

fn collect(e: &Expr, out: &mut Vec<VarId>) {
    match e {
        Expr::Var(v) | Expr::Field(v, _) => out.push(*v),
        Expr::Add(a, b) | Expr::Cat(a, b) | Expr::Lt(a, b) | Expr::Eq(a, b) => {
            collect(a, out);
            collect(b, out);
        }
        Expr::Len(a) | Expr::Show(a) | Expr::Join(a) | Expr::Not(a) | Expr::Some(a) => {
            collect(a, out)
        }
        Expr::List(items) => items.iter().for_each(|i| collect(i, out)),
        Expr::Rec(a, b, c) => {
            collect(a, out);
            collect(b, out);
            collect(c, out);
        }
        Expr::Num(_)
        | Expr::Text(_)
        | Expr::Bool(_)
        | Expr::Arg(_)
        | Expr::None
        | Expr::Declined => {}
    }
}

impl Builder {
    fn node(&mut self, uses: Vec<VarId>, defs: Vec<VarId>, succ: Vec<Node>) -> Node {
        self.g.uses.push(uses);
        self.g.defs.push(defs);
        self.g.succ.push(succ);
        self.g.succ.len() - 1
    }

    fn ask(&mut self, ask: &Ask, succ: Vec<Node>) -> Node {
        let texts = ask.keys.iter().flat_map(|k| uses(&k.text)).collect();
        let node = self.node(texts, Vec::new(), succ);
        self.g.sites.insert(ask.site, node);
        node
    }

    fn stmts(&mut self, stmts: &[Stmt], k: Node) -> Node {
        stmts.iter().rev().fold(k, |k, s| self.stmt(s, k))
    }

    /// A loop bounded by `counter`: its head reads the counter and leaves to `leave` when done,
    /// each iteration bumps it; `break` goes to `k`.
    fn counted_loop(
        &mut self,
        label: u32,
        counter: VarId,
        body: &Block,
        leave: Node,
        k: Node,
    ) -> Node {
        let head = self.node(vec![counter], Vec::new(), vec![leave]);
        self.loops.push(LoopTargets {
            label,
            head,
            exit: k,
        });
        let body = self.block(body, head);
        self.loops.pop();
        let step = self.node(vec![counter], vec![counter], vec![body]);
        self.g.succ[head].push(step);
        self.node(Vec::new(), vec![counter], vec![head])
    }

    fn block(&mut self, block: &Block, k: Node) -> Node {
        let tail = match &block.tail {
            Some(init) => self.init(init, k),
            None => k,
        };
        self.stmts(&block.stmts, tail)
    }

    /// Evaluates `init`, then continues at `k` (which binds the value).
    fn init(&mut self, init: &Init, k: Node) -> Node {
        match init {
            Init::Expr(e) => self.node(uses(e), Vec::new(), vec![k]),
            Init::Ask(ask) => self.ask(ask, vec![k]),
            Init::Try(e) => {
                let end = self.end;
                self.node(uses(e), Vec::new(), vec![k, end])
            }
            Init::Move(Place::Var(v) | Place::Field(v, _)) => {
                self.node(vec![*v], Vec::new(), vec![k])
            }
            Init::Move(Place::Arg(_)) => self.node(Vec::new(), Vec::new(), vec![k]),
            Init::Flow(flow) => self.flow(flow, k),
        }
    }

    fn jump(&mut self, jump: &Jump) -> Node {
        match jump {
            Jump::Return(e) => {
                let end = self.end;
                self.node(uses(e), Vec::new(), vec![end])
            }
            Jump::Break(label, value) => {
                let exit = self.target(*label).exit;
                self.node(
                    value.as_ref().map(uses).unwrap_or_default(),
                    Vec::new(),
                    vec![exit],
                )
            }
            Jump::Continue(label) => {
                let head = self.target(*label).head;
                self.node(Vec::new(), Vec::new(), vec![head])
            }
        }
    }

    fn target(&self, label: u32) -> &LoopTargets {
        self.loops
            .iter()
            .rev()
            .find(|l| l.label == label)
            .expect("a jump targets an enclosing loop")
    }

    fn stmt(&mut self, stmt: &Stmt, k: Node) -> Node {
        match stmt {
            Stmt::Let { var, init, .. } | Stmt::Assign { var, init } => {
                let bind = self.node(Vec::new(), vec![*var], vec![k]);
                self.init(init, bind)
            }
            Stmt::LetTuple { vars, ask } => {
                let bind = self.node(Vec::new(), vars.clone(), vec![k]);
                self.ask(ask, vec![bind])
            }
            Stmt::LetElse {
                var,
                source,
                otherwise,
            } => {
                let bind = self.node(Vec::new(), vec![*var], vec![k]);
                let otherwise = self.jump(otherwise);
                match source {
                    LetElseSource::Ask(ask) => self.ask(ask, vec![bind, otherwise]),
                    LetElseSource::Opt(e) => self.node(uses(e), Vec::new(), vec![bind, otherwise]),
                }
            }
            Stmt::Effect { text, .. } => self.node(uses(text), Vec::new(), vec![k]),
            Stmt::Ask(ask) => self.ask(ask, vec![k]),
            Stmt::Convert { var, answer, .. } => {
                let bind = self.node(Vec::new(), vec![*var], vec![k]);
                let end = self.end;
                self.node(vec![*answer], Vec::new(), vec![bind, end])
            }
            Stmt::Flow(flow) => self.flow(flow, k),
            Stmt::Guarded { cond, body, jump } => {
                let jump = self.jump(jump);
                let body = self.stmts(&body.stmts, jump);
                self.node(uses(cond), Vec::new(), vec![body, k])
            }
        }
    }

    fn flow(&mut self, flow: &Flow, k: Node) -> Node {
        match flow {
            Flow::If { cond, then, els } => {
                let then = self.block(then, k);
                let els = match els {
                    None => k,
                    Some(Else::Block(b)) => self.block(b, k),
                    Some(Else::If(f)) => self.flow(f, k),
                };
                match cond {
                    Cond::Bool(e) => self.node(uses(e), Vec::new(), vec![then, els]),
                    Cond::IfLet(v, source) => {
                        let bind = self.node(Vec::new(), vec![*v], vec![then]);
                        let scrutinee = match source {
                            IfLetSource::Expr(e) => uses(e),
                            IfLetSource::ArgNote => Vec::new(),
                        };
                        self.node(scrutinee, Vec::new(), vec![bind, els])
                    }
                }
            }
            Flow::Match { scrutinee, arms } => {
                let entries = arms
                    .iter()
                    .map(|arm| {
                        let body = self.block(&arm.body, k);
                        match &arm.pat {
                            ArmPat::Bind(v, guard) => {
                                let check = self.node(
                                    guard.as_ref().map(uses).unwrap_or_default(),
                                    Vec::new(),
                                    vec![body],
                                );
                                self.node(Vec::new(), vec![*v], vec![check])
                            }
                            ArmPat::Num(_) | ArmPat::Wild => body,
                        }
                    })
                    .collect();
                self.node(uses(scrutinee), Vec::new(), entries)
            }
            Flow::Loop {
                label,
                counter,
                body,
                default,
                ..
            } => {
                let exit = self.node(
                    default.as_ref().map(uses).unwrap_or_default(),
                    Vec::new(),
                    vec![k],
                );
                self.counted_loop(*label, *counter, body, exit, k)
            }
            Flow::While {
                label,
                counter,
                body,
                ..
            } => self.counted_loop(*label, *counter, body, k, k),
            Flow::WhileLet {
                label,
                queue,
                init,
                item,
                body,
            } => {
                let head = self.node(vec![*queue], vec![*queue], vec![k]);
                self.loops.push(LoopTargets {
                    label: *label,
                    head,
                    exit: k,
                });
                let body = self.block(body, head);
                self.loops.pop();
                let bind = self.node(Vec::new(), vec![*item], vec![body]);
                self.g.succ[head].push(bind);
                self.node(uses(init), vec![*queue], vec![head])
            }
            Flow::For {
                label,
                item,
                source,
                body,
            } => {
                let head = self.node(Vec::new(), Vec::new(), vec![k]);
                self.loops.push(LoopTargets {
                    label: *label,
                    head,
                    exit: k,
                });
                let body = self.block(body, head);
                self.loops.pop();
                let bind = self.node(Vec::new(), vec![*item], vec![body]);
                self.g.succ[head].push(bind);
                let source = match source {
                    ForSource::Cloned(e) => uses(e),
                    ForSource::IntoIter(v) => vec![*v],
                    ForSource::ArgItems | ForSource::Range(_) => Vec::new(),
                };
                self.node(source, Vec::new(), vec![head])
            }
            Flow::Block(b) => self.block(b, k),
        }
    }
}

/// The macro's name for each binding in the continuation: the binding's name, `name@k` for the
/// k-th binding of that name in source order (the handler's parameter `args` counts).
pub fn wire_names(program: &Program) -> BTreeMap<VarId, String> {
    let mut w = Wire {
        program,
        counts: BTreeMap::new(),
        names: BTreeMap::new(),
    };
    w.counts.insert("args".into(), 1);
    w.stmts(&program.body);
    w.names
}

struct Wire<'a> {
    program: &'a Program,
    counts: BTreeMap<String, u32>,
    names: BTreeMap<VarId, String>,
}

impl Wire<'_> {
    fn bind(&mut self, var: VarId) {
        let name = self.program.vars[var].name.clone();
        let count = self.counts.entry(name.clone()).or_insert(0);
        *count += 1;
        let wire = if *count == 1 {
            name
        } else {
            format!("{name}@{count}")
        };
        self.names.insert(var, wire);
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn block(&mut self, block: &Block) {
        self.stmts(&block.stmts);
        if let Some(tail) = &block.tail {
            self.init(tail);
        }
    }

    fn init(&mut self, init: &Init) {
        if let Init::Flow(flow) = init {
            self.flow(flow);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { var, init, .. } => {
                self.init(init);
                self.bind(*var);
            }
            Stmt::Assign { init, .. } => self.init(init),
            Stmt::LetTuple { vars, .. } => vars.iter().for_each(|v| self.bind(*v)),
            Stmt::LetElse { var, .. } | Stmt::Convert { var, .. } => self.bind(*var),
            Stmt::Flow(flow) => self.flow(flow),
            Stmt::Guarded { body, .. } => self.block(body),
            Stmt::Effect { .. } | Stmt::Ask(_) => {}
        }
    }

    fn flow(&mut self, flow: &Flow) {
        match flow {
            Flow::If { cond, then, els } => {
                if let Cond::IfLet(v, _) = cond {
                    self.bind(*v);
                }
                self.block(then);
                match els {
                    None => {}
                    Some(Else::Block(b)) => self.block(b),
                    Some(Else::If(f)) => self.flow(f),
                }
            }
            Flow::Match { arms, .. } => {
                for arm in arms {
                    if let ArmPat::Bind(v, _) = arm.pat {
                        self.bind(v);
                    }
                    self.block(&arm.body);
                }
            }
            Flow::Loop { counter, body, .. } | Flow::While { counter, body, .. } => {
                self.bind(*counter);
                self.block(body);
            }
            Flow::WhileLet {
                queue, item, body, ..
            } => {
                self.bind(*queue);
                self.bind(*item);
                self.block(body);
            }
            Flow::For { item, body, .. } => {
                self.bind(*item);
                self.block(body);
            }
            Flow::Block(b) => self.block(b),
        }
    }
}
