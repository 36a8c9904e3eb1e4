//! Typed, scope-aware generation of handler bodies from a choice stream.
//!
//! Every program is valid Rust without the macro: the generator tracks the type, visibility
//! (shadowing), mutability and move state of every binding, only moves a local at the loop depth
//! it was declared at (so no iteration moves it twice), and bounds every loop by a counter, a
//! range or an owned collection of at most three items.

use super::ast::*;
use super::choice::Choices;

/// Size limits: small enough to compile hundreds in CI, deep enough for the shapes that matter
/// (a loop inside a branch inside a loop).
pub struct Limits {
    pub statements: u32,
    pub ask_sites: u32,
    pub depth: u32,
    pub loops: usize,
}

pub const LIMITS: Limits = Limits {
    statements: 26,
    ask_sites: 4,
    depth: 3,
    loops: 2,
};

/// The longest list any expression can produce: `vec![a, b]`, and the three `args.items`.
pub const MAX_LIST: u32 = 3;

#[derive(Clone, Default)]
struct MoveState {
    whole: bool,
    fields: Vec<RecField>,
}

struct Scoped {
    var: VarId,
    assignable: bool,
    moved: MoveState,
    loop_depth: usize,
}

struct LoopFrame {
    label: u32,
    value: Option<Ty>,
}

struct Gen<'a> {
    src: Choices<'a>,
    vars: Vec<Var>,
    scope: Vec<Scoped>,
    loops: Vec<LoopFrame>,
    moved_args: Vec<ArgField>,
    names: u32,
    statements_left: u32,
    sites_left: u32,
    next_site: usize,
    next_effect: u32,
    keys: Vec<(String, Form)>,
    iterations: u32,
    max_asks: u32,
}

const TEXTS: [&str; 4] = ["", "a", "bc", "z"];
const VALUE_TYS: [Ty; 6] = [Ty::U32, Ty::Str, Ty::Bool, Ty::List, Ty::Opt, Ty::Rec];

/// Any choice stream → a well-typed handler body.
pub fn generate(stream: &[u32]) -> Program {
    generate_with(stream, &LIMITS).0
}

/// The program and how much of the stream it read.
pub fn generate_with(stream: &[u32], limits: &Limits) -> (Program, usize) {
    let mut g = Gen {
        src: Choices::new(stream),
        vars: Vec::new(),
        scope: Vec::new(),
        loops: Vec::new(),
        moved_args: Vec::new(),
        names: 0,
        statements_left: limits.statements,
        sites_left: limits.ask_sites,
        next_site: 0,
        next_effect: 0,
        keys: Vec::new(),
        iterations: 1,
        max_asks: 1,
    };
    let body = g.statements(limits.depth, limits.loops, true);
    let result = g.expr(Ty::Str, 2);
    let consumed = g.src.consumed();
    let program = Program {
        vars: g.vars,
        body,
        result,
        keys: g.keys,
        max_asks_per_key: g.max_asks,
    };
    (program, consumed)
}

impl Gen<'_> {
    // ---- bindings ----

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn visible(&self, at: usize) -> bool {
        let name = &self.vars[self.scope[at].var].name;
        self.scope[at + 1..]
            .iter()
            .all(|s| &self.vars[s.var].name != name)
    }

    /// A new user binding: a fresh name, or (sometimes) the name of a visible one, shadowing it.
    fn bind(&mut self, ty: Ty, assignable: bool) -> VarId {
        let shadowable: Vec<String> = (0..self.scope.len())
            .filter(|&i| self.visible(i))
            .map(|i| self.vars[self.scope[i].var].name.clone())
            .filter(|n| n.starts_with('v'))
            .collect();
        let name = if !shadowable.is_empty() && self.src.one_in(6) {
            shadowable[self.src.pick(shadowable.len() as u32) as usize].clone()
        } else {
            self.fresh_name("v")
        };
        self.declare(name, ty, assignable)
    }

    /// An `Answer` binding: always a fresh `a<n>`, never shadowed (only `v` names are), so
    /// the conversion that follows names exactly it.
    fn bind_answer(&mut self, form: Form, assignable: bool) -> VarId {
        let name = self.fresh_name("a");
        self.declare(name, Ty::Answer(form), assignable)
    }

    fn declare(&mut self, name: String, ty: Ty, assignable: bool) -> VarId {
        self.vars.push(Var { name, ty });
        let var = self.vars.len() - 1;
        self.scope.push(Scoped {
            var,
            assignable,
            moved: MoveState::default(),
            loop_depth: self.loops.len(),
        });
        var
    }

    fn scoped_mut(&mut self, var: VarId) -> &mut Scoped {
        self.scope
            .iter_mut()
            .rev()
            .find(|s| s.var == var)
            .expect("in scope")
    }

    /// Visible bindings of `ty` that `ok` accepts, innermost first.
    fn candidates(&self, ty: Ty, ok: impl Fn(&Scoped) -> bool) -> Vec<VarId> {
        (0..self.scope.len())
            .rev()
            .filter(|&i| self.visible(i))
            .map(|i| &self.scope[i])
            .filter(|s| self.vars[s.var].ty == ty && ok(s))
            .map(|s| s.var)
            .collect()
    }

    fn choose(&mut self, options: Vec<VarId>) -> Option<VarId> {
        if options.is_empty() {
            return None;
        }
        Some(options[self.src.pick(options.len() as u32) as usize])
    }

    fn readable(&mut self, ty: Ty) -> Option<VarId> {
        let options = self.candidates(ty, |s| !s.moved.whole && s.moved.fields.is_empty());
        self.choose(options)
    }

    fn field_readable(&mut self, field: RecField) -> Option<VarId> {
        let options = self.candidates(Ty::Rec, |s| {
            !s.moved.whole && !s.moved.fields.contains(&field)
        });
        self.choose(options)
    }

    /// A local that can be moved here: declared at this loop depth, so no later iteration
    /// sees it moved.
    fn movable(&mut self, ty: Ty) -> Option<VarId> {
        let depth = self.loops.len();
        let options = self.candidates(ty, |s| {
            s.loop_depth == depth && !s.moved.whole && s.moved.fields.is_empty() && !s.assignable
        });
        self.choose(options)
    }

    fn arg_movable(&self, field: ArgField) -> bool {
        self.loops.is_empty() && !self.moved_args.contains(&field)
    }

    // ---- expressions ----

    fn literal(&mut self, ty: Ty) -> Expr {
        match ty {
            Ty::U32 => Expr::Num(self.src.pick(4)),
            Ty::Str => Expr::Text(TEXTS[self.src.pick(4) as usize]),
            Ty::Bool => Expr::Bool(self.src.pick(2) == 1),
            Ty::List => Expr::List(Vec::new()),
            Ty::Opt => Expr::None,
            Ty::Rec => Expr::Rec(
                Box::new(Expr::Text("r")),
                Box::new(Expr::List(Vec::new())),
                Box::new(Expr::Num(1)),
            ),
            Ty::Answer(_) => Expr::Declined,
        }
    }

    fn var_or_literal(&mut self, ty: Ty) -> Expr {
        match self.readable(ty) {
            Some(v) => Expr::Var(v),
            None => self.literal(ty),
        }
    }

    fn arg_or(&mut self, field: ArgField) -> Expr {
        if self.moved_args.contains(&field) {
            self.literal(field.ty())
        } else {
            Expr::Arg(field)
        }
    }

    fn field_or(&mut self, field: RecField) -> Expr {
        match self.field_readable(field) {
            Some(rec) => Expr::Field(rec, field),
            None => self.literal(field.ty()),
        }
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> Expr {
        let b = |g: &mut Self, ty| Box::new(g.expr(ty, depth.saturating_sub(1)));
        let choice = self.src.pick(if depth == 0 { 2 } else { 7 });
        match (ty, choice) {
            (_, 0) => self.literal(ty),
            (_, 1) => self.var_or_literal(ty),
            (Ty::U32, 2) => self.arg_or(ArgField::Count),
            (Ty::U32, 3) => self.field_or(RecField::N),
            (Ty::U32, 4) => Expr::Add(b(self, Ty::U32), b(self, Ty::U32)),
            (Ty::U32, _) => {
                let of = if self.src.pick(2) == 0 {
                    Ty::Str
                } else {
                    Ty::List
                };
                Expr::Len(b(self, of))
            }
            (Ty::Str, 2) => self.arg_or(ArgField::Label),
            (Ty::Str, 3) => self.field_or(RecField::Label),
            (Ty::Str, 4) => Expr::Cat(b(self, Ty::Str), b(self, Ty::Str)),
            (Ty::Str, 5) => {
                let of = if self.src.pick(2) == 0 {
                    Ty::U32
                } else {
                    Ty::Bool
                };
                Expr::Show(b(self, of))
            }
            (Ty::Str, _) => Expr::Join(b(self, Ty::List)),
            (Ty::Bool, 2 | 3) => Expr::Lt(b(self, Ty::U32), b(self, Ty::U32)),
            (Ty::Bool, 4 | 5) => Expr::Eq(b(self, Ty::Str), b(self, Ty::Str)),
            (Ty::Bool, _) => Expr::Not(b(self, Ty::Bool)),
            (Ty::List, 2) => self.arg_or(ArgField::Items),
            (Ty::List, 3) => self.field_or(RecField::Tags),
            (Ty::List, _) => {
                let n = self.src.pick(3);
                Expr::List((0..n).map(|_| self.expr(Ty::Str, depth - 1)).collect())
            }
            (Ty::Opt, 2) => self.arg_or(ArgField::Note),
            (Ty::Opt, 3) => Expr::None,
            (Ty::Opt, _) => Expr::Some(b(self, Ty::Str)),
            (Ty::Rec, _) => Expr::Rec(b(self, Ty::Str), b(self, Ty::List), b(self, Ty::U32)),
            (Ty::Answer(_), _) => Expr::Declined,
        }
    }

    // ---- blocks ----

    /// A block's statements, an effect between every two; the scope ends with the block.
    fn statements(&mut self, depth: u32, loops_left: usize, root: bool) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        while self.statements_left > 0 && self.src.pick(if root { 8 } else { 4 }) != 0 {
            self.statements_left -= 1;
            if !stmts.is_empty() {
                stmts.push(self.effect());
            }
            self.statement(depth, loops_left, &mut stmts);
        }
        if root {
            stmts.push(self.effect());
        }
        stmts
    }

    fn block(&mut self, depth: u32, loops_left: usize, tail: Option<Ty>) -> Block {
        let mark = self.scope.len();
        let mut stmts = self.statements(depth, loops_left, false);
        let tail = tail.map(|ty| {
            if !stmts.is_empty() {
                stmts.push(self.effect());
            }
            Box::new(self.value(ty, depth, loops_left))
        });
        self.scope.truncate(mark);
        Block { stmts, tail }
    }

    /// An effect usually shows a local, so that code after an ask reads what came before it.
    fn effect(&mut self) -> Stmt {
        self.next_effect += 1;
        let id = self.next_effect;
        let ty = [Ty::U32, Ty::Str, Ty::Bool, Ty::List][self.src.pick(4) as usize];
        let text = match (self.src.pick(3), self.readable(ty)) {
            (0, _) | (_, None) => self.expr(Ty::Str, 1),
            (_, Some(v)) => match ty {
                Ty::U32 | Ty::Bool => Expr::Show(Box::new(Expr::Var(v))),
                Ty::List => Expr::Join(Box::new(Expr::Var(v))),
                _ => Expr::Var(v),
            },
        };
        Stmt::Effect { id, text }
    }

    // ---- values ----

    /// Something of type `ty` for a `let` or a block's tail: an expression, or (with depth
    /// left) control flow producing it.
    fn value(&mut self, ty: Ty, depth: u32, loops_left: usize) -> Init {
        if let Ty::Answer(form) = ty {
            return self.answer_value(form, depth, loops_left);
        }
        let choice = self.src.pick(if depth == 0 { 2 } else { 9 });
        match choice {
            0 | 1 => Init::Expr(self.expr(ty, 2)),
            2 if ty == Ty::U32 => Init::Try(self.expr(Ty::U32, 2)),
            2 | 3 => Init::Flow(Box::new(self.if_flow(Some(ty), depth, loops_left))),
            4 => Init::Flow(Box::new(self.match_flow(Some(ty), depth, loops_left))),
            5 | 6 if loops_left > 0 => {
                Init::Flow(Box::new(self.loop_flow(Some(ty), depth, loops_left)))
            }
            7 => Init::Flow(Box::new(Flow::Block(self.block(
                depth - 1,
                loops_left,
                Some(ty),
            )))),
            _ => Init::Expr(self.expr(ty, 2)),
        }
    }

    /// An `Answer<F>`: the `ask!` itself, or a branch, match or block whose tail asks.
    fn answer_value(&mut self, form: Form, depth: u32, loops_left: usize) -> Init {
        let ty = Some(Ty::Answer(form));
        match self.src.pick(if depth == 0 { 1 } else { 5 }) {
            _ if self.sites_left == 0 => Init::Expr(Expr::Declined),
            0 | 1 => Init::Ask(self.ask(&[form])),
            2 => Init::Flow(Box::new(self.if_flow(ty, depth, loops_left))),
            3 => Init::Flow(Box::new(self.match_flow(ty, depth, loops_left))),
            _ => Init::Flow(Box::new(Flow::Block(self.block(depth - 1, loops_left, ty)))),
        }
    }

    fn ask(&mut self, forms: &[Form]) -> Ask {
        // A local partly moved before an ask and read after it is a documented rejection
        // (rustc's E0382 at the ask: the ask saves the whole local), not a program to test:
        // once an ask follows, a partly moved local is not read again.
        for scoped in &mut self.scope {
            if !scoped.moved.fields.is_empty() {
                scoped.moved.whole = true;
            }
        }
        self.sites_left = self.sites_left.saturating_sub(1);
        let site = self.next_site;
        self.next_site += 1;
        self.max_asks = self.max_asks.max(self.iterations);
        let keys = forms
            .iter()
            .enumerate()
            .map(|(i, &form)| {
                let key = if forms.len() == 1 {
                    format!("k{site}")
                } else {
                    format!("k{site}{}", (b'a' + i as u8) as char)
                };
                self.keys.push((key.clone(), form));
                AskKey {
                    key,
                    form,
                    text: self.expr(Ty::Str, 1),
                }
            })
            .collect();
        Ask { site, keys }
    }

    fn form(&mut self) -> Form {
        Form::ALL[self.src.pick(3) as usize]
    }

    // ---- control flow ----

    fn cond(&mut self) -> Cond {
        Cond::Bool(self.expr(Ty::Bool, 2))
    }

    /// `if`, `if let`, with an `else` (always, for a value) or an `else if` chain.
    fn if_flow(&mut self, ty: Option<Ty>, depth: u32, loops_left: usize) -> Flow {
        let mark = self.scope.len();
        let cond = match self.src.pick(3) {
            1 => {
                let source = if self.arg_movable(ArgField::Note) && self.src.pick(2) == 1 {
                    self.moved_args.push(ArgField::Note);
                    IfLetSource::ArgNote
                } else {
                    IfLetSource::Expr(self.expr(Ty::Opt, 1))
                };
                Cond::IfLet(self.bind(Ty::Str, false), source)
            }
            _ => self.cond(),
        };
        let then = self.block(depth - 1, loops_left, ty);
        self.scope.truncate(mark);
        let els = match self.src.pick(3) {
            0 if ty.is_none() => None,
            2 if depth > 1 => Some(Else::If(Box::new(self.if_flow(ty, depth - 1, loops_left)))),
            _ => Some(Else::Block(self.block(depth - 1, loops_left, ty))),
        };
        Flow::If { cond, then, els }
    }

    fn match_flow(&mut self, ty: Option<Ty>, depth: u32, loops_left: usize) -> Flow {
        let scrutinee = self.expr(Ty::U32, 2);
        let mut arms = Vec::new();
        for n in 0..self.src.pick(3) {
            let mark = self.scope.len();
            let pat = if self.src.pick(2) == 0 {
                ArmPat::Num(n)
            } else {
                let bound = self.bind(Ty::U32, false);
                ArmPat::Bind(bound, Some(self.expr(Ty::Bool, 1)))
            };
            arms.push(Arm {
                pat,
                body: self.block(depth - 1, loops_left, ty),
            });
            self.scope.truncate(mark);
        }
        let mark = self.scope.len();
        let pat = if self.src.pick(2) == 0 {
            ArmPat::Wild
        } else {
            ArmPat::Bind(self.bind(Ty::U32, false), None)
        };
        arms.push(Arm {
            pat,
            body: self.block(depth - 1, loops_left, ty),
        });
        self.scope.truncate(mark);
        Flow::Match { scrutinee, arms }
    }

    fn enter_loop(&mut self, value: Option<Ty>, iterations: u32) -> (u32, u32) {
        self.names += 1;
        self.loops.push(LoopFrame {
            label: self.names,
            value,
        });
        let outer = self.iterations;
        self.iterations *= iterations;
        (self.names, outer)
    }

    fn leave_loop(&mut self, outer: u32) {
        self.loops.pop();
        self.iterations = outer;
    }

    fn counter(&mut self) -> VarId {
        let name = self.fresh_name("c");
        self.declare(name, Ty::U32, false)
    }

    /// `loop` (with a value when `ty` is given), `while`, `while let` or `for`.
    fn loop_flow(&mut self, ty: Option<Ty>, depth: u32, loops_left: usize) -> Flow {
        let mark = self.scope.len();
        let bound = 1 + self.src.pick(3);
        let kind = if ty.is_some() { 0 } else { self.src.pick(4) };
        let flow = match kind {
            0 => {
                let counter = self.counter();
                let (label, outer) = self.enter_loop(ty, bound);
                let body = self.block(depth - 1, loops_left - 1, None);
                self.leave_loop(outer);
                let default = ty.map(|ty| self.expr(ty, 1));
                Flow::Loop {
                    label,
                    counter,
                    bound,
                    body,
                    default,
                }
            }
            1 => {
                let counter = self.counter();
                let (label, outer) = self.enter_loop(None, bound);
                let body = self.block(depth - 1, loops_left - 1, None);
                self.leave_loop(outer);
                Flow::While {
                    label,
                    counter,
                    bound,
                    body,
                }
            }
            2 => {
                let init = self.expr(Ty::List, 1);
                let name = self.fresh_name("q");
                let queue = self.declare(name, Ty::List, false);
                let (label, outer) = self.enter_loop(None, MAX_LIST);
                let item = self.bind(Ty::Str, false);
                let body = self.block(depth - 1, loops_left - 1, None);
                self.leave_loop(outer);
                Flow::WhileLet {
                    label,
                    queue,
                    init,
                    item,
                    body,
                }
            }
            _ => {
                let source = match self.src.pick(4) {
                    1 => match self.movable(Ty::List) {
                        Some(v) => {
                            self.scoped_mut(v).moved.whole = true;
                            ForSource::IntoIter(v)
                        }
                        None => ForSource::Cloned(self.expr(Ty::List, 1)),
                    },
                    2 if self.arg_movable(ArgField::Items) => {
                        self.moved_args.push(ArgField::Items);
                        ForSource::ArgItems
                    }
                    3 => ForSource::Range(bound),
                    _ => ForSource::Cloned(self.expr(Ty::List, 1)),
                };
                let (iterations, item_ty) = match source {
                    ForSource::Range(n) => (n, Ty::U32),
                    _ => (MAX_LIST, Ty::Str),
                };
                let (label, outer) = self.enter_loop(None, iterations);
                let item = self.bind(item_ty, false);
                let body = self.block(depth - 1, loops_left - 1, None);
                self.leave_loop(outer);
                Flow::For {
                    label,
                    item,
                    source,
                    body,
                }
            }
        };
        // The counter and queue stay declared in the enclosing block, but nothing reads them
        // after the loop: they end here for the generator.
        self.scope.truncate(mark);
        flow
    }

    fn jump(&mut self) -> Jump {
        if self.loops.is_empty() || self.src.pick(3) == 0 {
            return Jump::Return(self.expr(Ty::Str, 1));
        }
        let n = self.loops.len();
        let target = n - 1 - self.src.pick(n as u32) as usize;
        let (label, value) = (self.loops[target].label, self.loops[target].value);
        if self.src.pick(2) == 0 {
            Jump::Break(label, value.map(|ty| self.expr(ty, 1)))
        } else {
            Jump::Continue(label)
        }
    }

    // ---- statements ----

    fn statement(&mut self, depth: u32, loops_left: usize, out: &mut Vec<Stmt>) {
        let choice = self.src.pick(16);
        match choice {
            0..=2 => {
                let ty = VALUE_TYS[self.src.pick(VALUE_TYS.len() as u32) as usize];
                let init = self.value(ty, depth, loops_left);
                let mutable = self.src.one_in(3);
                let var = self.bind(ty, mutable);
                out.push(Stmt::Let { var, mutable, init });
            }
            3 => self.assignment(out),
            4 => self.moving_let(out),
            5..=7 if self.sites_left > 0 => self.ask_statements(depth, loops_left, out),
            8 | 9 if depth > 0 => out.push(Stmt::Flow(self.if_flow(None, depth, loops_left))),
            10 if depth > 0 => out.push(Stmt::Flow(self.match_flow(None, depth, loops_left))),
            11 | 12 if depth > 0 && loops_left > 0 => {
                out.push(Stmt::Flow(self.loop_flow(None, depth, loops_left)))
            }
            13 if depth > 0 => {
                let cond = self.expr(Ty::Bool, 2);
                // The jump is generated inside the body's scope: it is printed there, so a
                // name it reads resolves to what the body may have shadowed it with.
                let mark = self.scope.len();
                let mut stmts = self.statements(depth - 1, loops_left, false);
                if !stmts.is_empty() {
                    stmts.push(self.effect());
                }
                let jump = self.jump();
                self.scope.truncate(mark);
                out.push(Stmt::Guarded {
                    cond,
                    body: Block { stmts, tail: None },
                    jump,
                });
            }
            14 => {
                let source = match self.readable(Ty::Opt) {
                    Some(v) if self.src.pick(2) == 0 => LetElseSource::Opt(Expr::Var(v)),
                    _ => LetElseSource::Opt(self.arg_or(ArgField::Note)),
                };
                let otherwise = self.jump();
                let var = self.bind(Ty::Str, false);
                out.push(Stmt::LetElse {
                    var,
                    source,
                    otherwise,
                });
            }
            15 if depth > 0 => out.push(Stmt::Flow(Flow::Block(self.block(
                depth - 1,
                loops_left,
                None,
            )))),
            _ => out.push(self.effect()),
        }
    }

    fn assignment(&mut self, out: &mut Vec<Stmt>) {
        let options = self
            .candidates(Ty::U32, |s| s.assignable && !s.moved.whole)
            .into_iter()
            .chain(self.candidates(Ty::Str, |s| s.assignable && !s.moved.whole))
            .collect();
        match self.choose(options) {
            Some(var) => {
                let ty = self.vars[var].ty;
                let init = if ty == Ty::U32 && self.src.pick(2) == 1 {
                    Init::Try(self.expr(ty, 2))
                } else {
                    Init::Expr(self.expr(ty, 2))
                };
                out.push(Stmt::Assign { var, init });
            }
            None => out.push(self.effect()),
        }
    }

    /// A partial or whole move: `let v = rec.label;`, `let v = args.items;`, `let v = x;`.
    fn moving_let(&mut self, out: &mut Vec<Stmt>) {
        let place = match self.src.pick(3) {
            0 => {
                let field = if self.src.pick(2) == 0 {
                    RecField::Label
                } else {
                    RecField::Tags
                };
                let depth = self.loops.len();
                let options = self.candidates(Ty::Rec, |s| {
                    s.loop_depth == depth
                        && !s.moved.whole
                        && !s.moved.fields.contains(&field)
                        && !s.assignable
                });
                self.choose(options).map(|rec| {
                    self.scoped_mut(rec).moved.fields.push(field);
                    (Place::Field(rec, field), field.ty())
                })
            }
            1 => {
                let field =
                    [ArgField::Label, ArgField::Items, ArgField::Note][self.src.pick(3) as usize];
                self.arg_movable(field).then(|| {
                    self.moved_args.push(field);
                    (Place::Arg(field), field.ty())
                })
            }
            _ => {
                let ty = [Ty::Str, Ty::List, Ty::Opt, Ty::Rec][self.src.pick(4) as usize];
                self.movable(ty).map(|v| {
                    self.scoped_mut(v).moved.whole = true;
                    (Place::Var(v), ty)
                })
            }
        };
        match place {
            Some((place, ty)) => {
                let var = self.bind(ty, false);
                out.push(Stmt::Let {
                    var,
                    mutable: false,
                    init: Init::Move(place),
                });
            }
            None => out.push(self.effect()),
        }
    }

    /// An ask in one of the positions `ask!` supports, its answer converted at once (an
    /// `Answer` is not serializable, so it must not live across another ask).
    fn ask_statements(&mut self, depth: u32, loops_left: usize, out: &mut Vec<Stmt>) {
        match self.src.pick(6) {
            0 => {
                let form = self.form();
                let ask = self.ask(&[form]);
                let answer = self.bind_answer(form, false);
                out.push(Stmt::Let {
                    var: answer,
                    mutable: false,
                    init: Init::Ask(ask),
                });
                self.convert(answer, form, out);
            }
            1 => {
                let form = self.form();
                let ask = self.ask(&[form]);
                let otherwise = self.jump();
                let var = self.bind(form.field_ty(), false);
                out.push(Stmt::LetElse {
                    var,
                    source: LetElseSource::Ask(ask),
                    otherwise,
                });
            }
            2 => {
                let form = self.form();
                let answer = self.bind_answer(form, true);
                out.push(Stmt::Let {
                    var: answer,
                    mutable: true,
                    init: Init::Expr(Expr::Declined),
                });
                out.push(self.effect());
                let ask = self.ask(&[form]);
                out.push(Stmt::Assign {
                    var: answer,
                    init: Init::Ask(ask),
                });
                self.convert(answer, form, out);
            }
            3 => {
                let form = self.form();
                out.push(Stmt::Ask(self.ask(&[form])));
            }
            4 => {
                let forms: Vec<Form> = (0..2 + self.src.pick(2)).map(|_| self.form()).collect();
                let ask = self.ask(&forms);
                let vars: Vec<VarId> = forms.iter().map(|&f| self.bind_answer(f, false)).collect();
                out.push(Stmt::LetTuple {
                    vars: vars.clone(),
                    ask,
                });
                for (var, form) in vars.into_iter().zip(forms) {
                    self.convert(var, form, out);
                }
            }
            _ => {
                let form = self.form();
                let init = if depth > 0 {
                    self.answer_value(form, depth, loops_left)
                } else {
                    Init::Ask(self.ask(&[form]))
                };
                let answer = self.bind_answer(form, false);
                out.push(Stmt::Let {
                    var: answer,
                    mutable: false,
                    init,
                });
                self.convert(answer, form, out);
            }
        }
    }

    fn convert(&mut self, answer: VarId, form: Form, out: &mut Vec<Stmt>) {
        out.push(self.effect());
        self.scoped_mut(answer).moved.whole = true;
        let guard = self.src.pick(2) == 1;
        let cancel = if self.src.pick(2) == 0 {
            CancelArm::Return(self.vars[answer].name.clone())
        } else {
            CancelArm::Default
        };
        let mutable = self.src.one_in(3);
        let var = self.bind(form.field_ty(), mutable);
        out.push(Stmt::Convert {
            var,
            mutable,
            answer,
            form,
            guard,
            cancel,
        });
    }
}
