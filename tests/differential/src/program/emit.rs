//! Prints a program as Rust: the `#[mrtr_tool]` handler (each ask an `ask!`), or the plain
//! reference body (each ask an awaited scripted answer). Everything but the asks is printed by
//! the same code, so the two differ only where the lowering does.

use std::fmt::Write as _;

use super::ast::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `ask!(key: elicit::<T>(..))`, inside `#[mrtr_tool]`.
    Lowered,
    /// `self.ask_in_new_round::<T>("key", ..).await`: the plain `async fn` reference.
    Plain,
}

/// The whole method, attributes included for the lowered form.
pub fn handler(program: &Program, name: &str, mode: Mode) -> String {
    let mut p = Printer {
        program,
        mode,
        out: String::new(),
        indent: 1,
    };
    if mode == Mode::Lowered {
        p.line("#[mrtr_tool]");
        p.line(&format!(
            "#[tool(description = \"generated handler {name}\")]"
        ));
    }
    p.line(&format!(
        "async fn {name}(&self, Parameters(args): Parameters<Args>) -> Result<CallToolResult, ErrorData> {{"
    ));
    p.indent += 1;
    p.stmts(&program.body);
    let result = p.expr(&program.result);
    p.line(&format!("Ok(reply({result}))"));
    p.indent -= 1;
    p.line("}");
    p.out
}

pub fn ty(t: Ty) -> String {
    match t {
        Ty::U32 => "u32".into(),
        Ty::Str => "String".into(),
        Ty::Bool => "bool".into(),
        Ty::List => "Vec<String>".into(),
        Ty::Opt => "Option<String>".into(),
        Ty::Rec => "Rec".into(),
        Ty::Answer(form) => format!("Answer<{}>", form_name(form)),
    }
}

pub fn form_name(form: Form) -> &'static str {
    match form {
        Form::Num => "Num",
        Form::Word => "Word",
        Form::Flag => "Flag",
    }
}

/// The field of a form's struct and the conversions of its answer.
fn form_field(form: Form) -> &'static str {
    match form {
        Form::Num => "n",
        Form::Word => "w",
        Form::Flag => "ok",
    }
}

struct Printer<'a> {
    program: &'a Program,
    mode: Mode,
    out: String,
    indent: usize,
}

impl Printer<'_> {
    fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(self.indent));
    }

    fn name(&self, var: VarId) -> &str {
        &self.program.vars[var].name
    }

    fn ty_of(&self, var: VarId) -> String {
        ty(self.program.vars[var].ty)
    }

    // ---- expressions ----

    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Num(n) => format!("{n}u32"),
            Expr::Text(s) => format!("String::from({s:?})"),
            Expr::Bool(b) => b.to_string(),
            Expr::Var(v) => match self.program.vars[*v].ty {
                Ty::U32 | Ty::Bool => self.name(*v).to_owned(),
                _ => format!("{}.clone()", self.name(*v)),
            },
            Expr::Field(rec, field) => match field {
                RecField::N => format!("{}.n", self.name(*rec)),
                RecField::Label => format!("{}.label.clone()", self.name(*rec)),
                RecField::Tags => format!("{}.tags.clone()", self.name(*rec)),
            },
            Expr::Arg(field) => match field {
                ArgField::Count => "args.count".into(),
                ArgField::Label => "args.label.clone()".into(),
                ArgField::Items => "args.items.clone()".into(),
                ArgField::Note => "args.note.clone()".into(),
            },
            Expr::Add(a, b) => format!("{}.wrapping_add({})", self.expr(a), self.expr(b)),
            Expr::Len(a) => format!("({}.len() as u32)", self.expr(a)),
            Expr::Cat(a, b) => format!("cat({}, {})", self.expr(a), self.expr(b)),
            Expr::Show(a) => format!("format!(\"{{}}\", {})", self.expr(a)),
            Expr::Join(a) => format!("{}.join(\"+\")", self.expr(a)),
            Expr::Lt(a, b) => format!("({} < {})", self.expr(a), self.expr(b)),
            Expr::Eq(a, b) => format!("({} == {})", self.expr(a), self.expr(b)),
            Expr::Not(a) => format!("!{}", self.expr(a)),
            Expr::List(items) if items.is_empty() => "Vec::<String>::new()".into(),
            Expr::List(items) => {
                let items: Vec<String> = items.iter().map(|i| self.expr(i)).collect();
                format!("vec![{}]", items.join(", "))
            }
            Expr::Some(a) => format!("Some({})", self.expr(a)),
            Expr::None => "None::<String>".into(),
            Expr::Rec(label, tags, n) => format!(
                "Rec {{ label: {}, tags: {}, n: {} }}",
                self.expr(label),
                self.expr(tags),
                self.expr(n)
            ),
            Expr::Declined => "Answer::Decline".into(),
        }
    }

    fn ask(&self, ask: &Ask) -> String {
        let message = |k: &AskKey| format!("format!(\"[{}] {{}}\", {})", k.key, self.expr(&k.text));
        match self.mode {
            Mode::Lowered => {
                let keys: Vec<String> = ask
                    .keys
                    .iter()
                    .map(|k| format!("{}: elicit::<{}>({})", k.key, form_name(k.form), message(k)))
                    .collect();
                format!("ask!({})", keys.join(", "))
            }
            Mode::Plain => {
                let asks: Vec<String> = ask
                    .keys
                    .iter()
                    .enumerate()
                    .map(|(i, k)| {
                        let round = if i == 0 {
                            "ask_in_new_round"
                        } else {
                            "ask_in_same_round"
                        };
                        format!(
                            "self.{round}::<{}>({:?}, {}).await",
                            form_name(k.form),
                            k.key,
                            message(k)
                        )
                    })
                    .collect();
                if asks.len() == 1 {
                    asks[0].clone()
                } else {
                    format!("({})", asks.join(", "))
                }
            }
        }
    }

    fn place(&self, place: &Place) -> String {
        match place {
            Place::Var(v) => self.name(*v).to_owned(),
            Place::Field(rec, RecField::Label) => format!("{}.label", self.name(*rec)),
            Place::Field(rec, RecField::Tags) => format!("{}.tags", self.name(*rec)),
            Place::Field(rec, RecField::N) => format!("{}.n", self.name(*rec)),
            Place::Arg(ArgField::Label) => "args.label".into(),
            Place::Arg(ArgField::Items) => "args.items".into(),
            Place::Arg(ArgField::Note) => "args.note".into(),
            Place::Arg(ArgField::Count) => "args.count".into(),
        }
    }

    fn jump(&self, jump: &Jump) -> String {
        match jump {
            Jump::Return(e) => format!("return Ok(reply({}))", self.expr(e)),
            Jump::Break(label, None) => format!("break 'l{label}"),
            Jump::Break(label, Some(e)) => format!("break 'l{label} {}", self.expr(e)),
            Jump::Continue(label) => format!("continue 'l{label}"),
        }
    }

    // ---- statements ----

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// The `let` a loop needs before it (its counter, its queue), printed before the statement
    /// the loop is part of.
    fn prelude(&mut self, init: &Init) {
        if let Init::Flow(flow) = init {
            self.flow_prelude(flow);
        }
    }

    fn flow_prelude(&mut self, flow: &Flow) {
        match flow {
            Flow::Loop { counter, .. } | Flow::While { counter, .. } => {
                let line = format!("let mut {}: u32 = 0;", self.name(*counter));
                self.line(&line);
            }
            Flow::WhileLet { queue, init, .. } => {
                let line = format!(
                    "let mut {}: Vec<String> = {};",
                    self.name(*queue),
                    self.expr(init)
                );
                self.line(&line);
            }
            _ => {}
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Let { var, mutable, init } => {
                self.prelude(init);
                let head = format!(
                    "let {}{}: {} = ",
                    if *mutable { "mut " } else { "" },
                    self.name(*var),
                    self.ty_of(*var)
                );
                self.init_line(&head, init, ";");
            }
            Stmt::LetTuple { vars, ask } => {
                let names: Vec<&str> = vars.iter().map(|v| self.name(*v)).collect();
                let tys: Vec<String> = vars.iter().map(|v| self.ty_of(*v)).collect();
                let line = format!(
                    "let ({}): ({}) = {};",
                    names.join(", "),
                    tys.join(", "),
                    self.ask(ask)
                );
                self.line(&line);
            }
            Stmt::LetElse {
                var,
                source,
                otherwise,
            } => {
                let (pattern, value) = match source {
                    LetElseSource::Ask(ask) => {
                        let form = ask.keys[0].form;
                        (
                            format!(
                                "Answer::Accept({} {{ {}: {} }})",
                                form_name(form),
                                form_field(form),
                                self.name(*var)
                            ),
                            self.ask(ask),
                        )
                    }
                    LetElseSource::Opt(e) => (format!("Some({})", self.name(*var)), self.expr(e)),
                };
                let line = format!(
                    "let {pattern} = {value} else {{ {}; }};",
                    self.jump(otherwise)
                );
                self.line(&line);
            }
            Stmt::Assign { var, init } => {
                let head = format!("{} = ", self.name(*var));
                self.init_line(&head, init, ";");
            }
            Stmt::Effect { id, text } => {
                let line = format!("self.log(format!(\"e{id} {{}}\", {}));", self.expr(text));
                self.line(&line);
            }
            Stmt::Ask(ask) => {
                let line = format!("{};", self.ask(ask));
                self.line(&line);
            }
            Stmt::Convert {
                var,
                mutable,
                answer,
                form,
                guard,
                cancel,
            } => self.convert(*var, *mutable, *answer, *form, *guard, cancel),
            Stmt::Flow(flow) => {
                self.flow_prelude(flow);
                self.flow("", flow, "");
            }
            Stmt::Guarded { cond, body, jump } => {
                let line = format!("if {} {{", self.expr(cond));
                self.line(&line);
                self.indent += 1;
                self.stmts(&body.stmts);
                let line = format!("{};", self.jump(jump));
                self.line(&line);
                self.indent -= 1;
                self.line("}");
            }
        }
    }

    fn convert(
        &mut self,
        var: VarId,
        mutable: bool,
        answer: VarId,
        form: Form,
        guard: bool,
        cancel: &CancelArm,
    ) {
        let (field, strong, plain, declined, cancelled) = match form {
            Form::Num => ("n", "n > 1 => n.wrapping_add(10)", "n", "100u32", "200u32"),
            Form::Word => (
                "w",
                "w.len() > 2 => cat(w, String::from(\"!\"))",
                "w",
                "String::from(\"declined\")",
                "String::from(\"cancelled\")",
            ),
            Form::Flag => ("ok", "!ok => false", "ok", "false", "true"),
        };
        let f = form_name(form);
        let head = format!(
            "let {}{}: {} = match {} {{",
            if mutable { "mut " } else { "" },
            self.name(var),
            self.ty_of(var),
            self.name(answer)
        );
        self.line(&head);
        self.indent += 1;
        if guard {
            self.line(&format!("Answer::Accept({f} {{ {field} }}) if {strong},"));
        }
        self.line(&format!("Answer::Accept({f} {{ {field} }}) => {plain},"));
        self.line(&format!("Answer::Decline => {declined},"));
        match cancel {
            CancelArm::Return(what) => self.line(&format!(
                "Answer::Cancel => return Ok(reply(String::from(\"cancelled {what}\"))),"
            )),
            CancelArm::Default => self.line(&format!("Answer::Cancel => {cancelled},")),
        }
        self.indent -= 1;
        self.line("};");
    }

    /// `head` + the value + `end`: an expression on one line, control flow over several.
    fn init_line(&mut self, head: &str, init: &Init, end: &str) {
        match init {
            Init::Flow(flow) => self.flow(head, flow, end),
            other => {
                let value = self.simple_init(other);
                self.line(&format!("{head}{value}{end}"));
            }
        }
    }

    fn simple_init(&self, init: &Init) -> String {
        match init {
            Init::Expr(e) => self.expr(e),
            Init::Ask(ask) => self.ask(ask),
            Init::Try(e) => format!("checked({})?", self.expr(e)),
            Init::Move(place) => self.place(place),
            Init::Flow(_) => unreachable!("control flow is printed over several lines"),
        }
    }

    fn block_body(&mut self, block: &Block) {
        self.indent += 1;
        self.stmts(&block.stmts);
        if let Some(tail) = &block.tail {
            self.prelude(tail);
            self.init_line("", tail, "");
        }
        self.indent -= 1;
    }

    fn flow(&mut self, head: &str, flow: &Flow, end: &str) {
        match flow {
            Flow::If { .. } => self.if_chain(head, flow, end),
            Flow::Match { scrutinee, arms } => {
                self.line(&format!("{head}match {} {{", self.expr(scrutinee)));
                self.indent += 1;
                for arm in arms {
                    let pat = match &arm.pat {
                        ArmPat::Num(n) => format!("{n}u32"),
                        ArmPat::Bind(v, Some(guard)) => {
                            format!("{} if {}", self.name(*v), self.expr(guard))
                        }
                        ArmPat::Bind(v, None) => self.name(*v).to_owned(),
                        ArmPat::Wild => "_".into(),
                    };
                    self.line(&format!("{pat} => {{"));
                    self.block_body(&arm.body);
                    self.line("}");
                }
                self.indent -= 1;
                self.line(&format!("}}{end}"));
            }
            Flow::Loop {
                label,
                counter,
                bound,
                body,
                default,
            } => {
                self.line(&format!("{head}'l{label}: loop {{"));
                self.indent += 1;
                let c = self.name(*counter).to_owned();
                let exit = match default {
                    Some(e) => format!("break 'l{label} {}", self.expr(e)),
                    None => format!("break 'l{label}"),
                };
                self.line(&format!("if {c} >= {bound} {{ {exit}; }}"));
                self.line(&format!("{c} += 1;"));
                self.indent -= 1;
                self.block_body(body);
                self.line(&format!("}}{end}"));
            }
            Flow::While {
                label,
                counter,
                bound,
                body,
            } => {
                let c = self.name(*counter).to_owned();
                self.line(&format!("{head}'l{label}: while {c} < {bound} {{"));
                self.line(&format!("    {c} += 1;"));
                self.block_body(body);
                self.line(&format!("}}{end}"));
            }
            Flow::WhileLet {
                label,
                queue,
                item,
                body,
                ..
            } => {
                let line = format!(
                    "{head}'l{label}: while let Some({}) = {}.pop() {{",
                    self.name(*item),
                    self.name(*queue)
                );
                self.line(&line);
                self.block_body(body);
                self.line(&format!("}}{end}"));
            }
            Flow::For {
                label,
                item,
                source,
                body,
            } => {
                let source = match source {
                    ForSource::Cloned(e) => format!("{}.clone()", self.expr(e)),
                    ForSource::IntoIter(v) => format!("{}.into_iter()", self.name(*v)),
                    ForSource::ArgItems => "args.items".into(),
                    ForSource::Range(n) => format!("0..{n}u32"),
                };
                let line = format!("{head}'l{label}: for {} in {source} {{", self.name(*item));
                self.line(&line);
                self.block_body(body);
                self.line(&format!("}}{end}"));
            }
            Flow::Block(block) => {
                self.line(&format!("{head}{{"));
                self.block_body(block);
                self.line(&format!("}}{end}"));
            }
        }
    }

    fn if_chain(&mut self, head: &str, flow: &Flow, end: &str) {
        let mut current = flow;
        let mut opener = format!("{head}if");
        loop {
            let Flow::If { cond, then, els } = current else {
                unreachable!("an else-if chain holds ifs")
            };
            let cond = match cond {
                Cond::Bool(e) => self.expr(e),
                Cond::IfLet(v, IfLetSource::Expr(e)) => {
                    format!("let Some({}) = {}", self.name(*v), self.expr(e))
                }
                Cond::IfLet(v, IfLetSource::ArgNote) => {
                    format!("let Some({}) = args.note", self.name(*v))
                }
            };
            self.line(&format!("{opener} {cond} {{"));
            self.block_body(then);
            match els {
                None => {
                    self.line(&format!("}}{end}"));
                    return;
                }
                Some(Else::Block(block)) => {
                    self.line("} else {");
                    self.block_body(block);
                    self.line(&format!("}}{end}"));
                    return;
                }
                Some(Else::If(next)) => {
                    opener = "} else if".into();
                    current = next;
                }
            }
        }
    }
}
