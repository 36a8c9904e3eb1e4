//! The generated handler language: a typed subset of what a `#[mrtr_tool]` body can contain.
//!
//! Every binding is a [`VarId`] into [`Program::vars`]; names may repeat (shadowing), so the
//! emitter prints names while the liveness oracle reasons about identities.

/// A binding of the program: a `let`, a pattern binding, a loop counter or item.
pub type VarId = usize;

/// What a value is, in the handler's own types (see `drive::vocab`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    U32,
    Str,
    Bool,
    /// `Vec<String>`
    List,
    /// `Option<String>`
    Opt,
    /// `Rec { label: String, tags: Vec<String>, n: u32 }`: a carried struct with several fields.
    Rec,
    /// `Answer<F>`: what an `ask!` yields; never carried (not serializable), converted at once.
    Answer(Form),
}

/// The `#[derive(mrtr::Elicit)]` struct an ask requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    /// `Num { n: u32 }`
    Num,
    /// `Word { w: String }`
    Word,
    /// `Flag { ok: bool }`
    Flag,
}

impl Form {
    pub const ALL: [Form; 3] = [Form::Num, Form::Word, Form::Flag];

    /// The type of the one field an accepted answer is converted to.
    pub fn field_ty(self) -> Ty {
        match self {
            Form::Num => Ty::U32,
            Form::Word => Ty::Str,
            Form::Flag => Ty::Bool,
        }
    }
}

/// A field of `Rec`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecField {
    Label,
    Tags,
    N,
}

impl RecField {
    pub fn ty(self) -> Ty {
        match self {
            RecField::Label => Ty::Str,
            RecField::Tags => Ty::List,
            RecField::N => Ty::U32,
        }
    }
}

/// A field of the tool's `Args` (`Parameters(args)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgField {
    /// `note: Option<String>`
    Note,
    /// `items: Vec<String>`
    Items,
    /// `count: u32`
    Count,
    /// `label: String`
    Label,
}

impl ArgField {
    pub fn ty(self) -> Ty {
        match self {
            ArgField::Note => Ty::Opt,
            ArgField::Items => Ty::List,
            ArgField::Count => Ty::U32,
            ArgField::Label => Ty::Str,
        }
    }
}

/// Pure, panic-free expressions. Reads of non-`Copy` values clone; moves are explicit
/// ([`Init::Move`], [`ForSource::IntoIter`], [`IfLetSource::ArgNote`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Num(u32),
    Text(&'static str),
    Bool(bool),
    Var(VarId),
    Field(VarId, RecField),
    Arg(ArgField),
    /// `a.wrapping_add(b)`
    Add(Box<Expr>, Box<Expr>),
    /// `(e.len() as u32)` of a `String` or a `Vec<String>`
    Len(Box<Expr>),
    /// `cat(a, b)`: concatenation truncated, so loops cannot blow values up.
    Cat(Box<Expr>, Box<Expr>),
    /// `format!("{}", e)` of a `u32` or `bool`
    Show(Box<Expr>),
    /// `e.join("+")`
    Join(Box<Expr>),
    Lt(Box<Expr>, Box<Expr>),
    Eq(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    /// `vec![a, b]`
    List(Vec<Expr>),
    Some(Box<Expr>),
    None,
    /// `Rec { label, tags, n }`
    Rec(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `Answer::Decline`, the non-asking side of an answer-valued branch.
    Declined,
}

/// One `ask!`: one key or several (`ask!(a: .., b: ..)`, a tuple of answers), one round.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    pub site: usize,
    pub keys: Vec<AskKey>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AskKey {
    pub key: String,
    pub form: Form,
    /// The message is `format!("[key] {}", text)`: the key in the text lets the scripted
    /// client tell asks apart on a legacy session, where requests carry no key.
    pub text: Expr,
}

/// What a `let` binds to, and what a value-producing block ends with.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Expr(Expr),
    Ask(Ask),
    /// `checked(e)?`: a `Result<u32, Oops>` and `?` through `From<Oops> for ErrorData`.
    Try(Expr),
    /// Moves a whole local (`let y = x;`) or one field out of a `Rec` local or of `args`.
    Move(Place),
    Flow(Box<Flow>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    Var(VarId),
    Field(VarId, RecField),
    Arg(ArgField),
}

/// Control flow, as a statement (unit) or as a value (`let v = if ..`, block tail).
#[derive(Clone, Debug, PartialEq)]
pub enum Flow {
    If {
        cond: Cond,
        then: Block,
        els: Option<Else>,
    },
    /// `match scrutinee { 0 => .., v if guard => .., _ => .. }`
    Match {
        scrutinee: Expr,
        arms: Vec<Arm>,
    },
    /// `let mut c = 0; 'l: loop { if c >= bound { break 'l default; } c += 1; body }`
    Loop {
        label: u32,
        counter: VarId,
        bound: u32,
        body: Block,
        /// The value of the bound-reached `break`, for a value loop.
        default: Option<Expr>,
    },
    /// `let mut c = 0; 'l: while c < bound { c += 1; body }`
    While {
        label: u32,
        counter: VarId,
        bound: u32,
        body: Block,
    },
    /// `let mut q = list; 'l: while let Some(item) = q.pop() { body }`
    WhileLet {
        label: u32,
        queue: VarId,
        init: Expr,
        item: VarId,
        body: Block,
    },
    /// `'l: for item in source { body }`
    For {
        label: u32,
        item: VarId,
        source: ForSource,
        body: Block,
    },
    Block(Block),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Bool(Expr),
    /// `if let Some(var) = source`
    IfLet(VarId, IfLetSource),
}

#[derive(Clone, Debug, PartialEq)]
pub enum IfLetSource {
    /// An `Option<String>` expression (cloned).
    Expr(Expr),
    /// `args.note`: moves the field out of the parameter.
    ArgNote,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Else {
    Block(Block),
    /// `else if ..`
    If(Box<Flow>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    pub pat: ArmPat,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArmPat {
    Num(u32),
    /// `v if guard`
    Bind(VarId, Option<Expr>),
    Wild,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForSource {
    /// `list.clone()` of a `Vec<String>` expression
    Cloned(Expr),
    /// `v.into_iter()`: moves the local
    IntoIter(VarId),
    /// `args.items`: moves the parameter's field
    ArgItems,
    /// `0..bound`
    Range(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let [mut] var: T = init;`
    Let {
        var: VarId,
        mutable: bool,
        init: Init,
    },
    /// `let (a, b): (Answer<..>, Answer<..>) = ask!(a: .., b: ..);`
    LetTuple {
        vars: Vec<VarId>,
        ask: Ask,
    },
    /// `let Answer::Accept(Form { field: var }) = ask!(..) else { .. };` or
    /// `let Some(var) = opt else { .. };`
    LetElse {
        var: VarId,
        source: LetElseSource,
        otherwise: Jump,
    },
    /// `var = init;` (an `Answer` local takes `x = ask!(..);`)
    Assign {
        var: VarId,
        init: Init,
    },
    /// `self.log(format!("e<id> {}", text))`: one effect, to count how often code ran.
    Effect {
        id: u32,
        text: Expr,
    },
    /// `ask!(..);`, the answer dropped.
    Ask(Ask),
    /// `let var: T = match answer { Accept(..) if .. => .., Accept(..) => .., Decline => .., Cancel => .. };`
    Convert {
        var: VarId,
        mutable: bool,
        answer: VarId,
        form: Form,
        guard: bool,
        cancel: CancelArm,
    },
    Flow(Flow),
    /// `if cond { body; jump }`: exits only at a block's end, so no code is unreachable.
    Guarded {
        cond: Expr,
        body: Block,
        jump: Jump,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum LetElseSource {
    Ask(Ask),
    Opt(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum CancelArm {
    /// `Answer::Cancel => return Ok(reply("cancelled <key>"))`
    Return(String),
    Default,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Jump {
    Return(Expr),
    Break(u32, Option<Expr>),
    Continue(u32),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The block's value; `None` for a unit block.
    pub tail: Option<Box<Init>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
}

/// One generated handler: its body and bindings. The body ends with `Ok(reply(result))`.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub vars: Vec<Var>,
    pub body: Vec<Stmt>,
    pub result: Expr,
    /// Every ask key with its form, in site order.
    pub keys: Vec<(String, Form)>,
    /// The most times any one key can be asked in a call (product of enclosing loop bounds).
    pub max_asks_per_key: u32,
}

/// How many statements, counted recursively: the size a reproducer is measured by.
pub fn size(stmts: &[Stmt]) -> usize {
    stmts.iter().map(stmt_size).sum()
}

fn stmt_size(stmt: &Stmt) -> usize {
    1 + match stmt {
        Stmt::Let { init, .. } | Stmt::Assign { init, .. } => init_size(init),
        Stmt::Flow(flow) => flow_size(flow),
        Stmt::Guarded { body, .. } => block_size(body),
        _ => 0,
    }
}

fn init_size(init: &Init) -> usize {
    match init {
        Init::Flow(flow) => flow_size(flow),
        _ => 0,
    }
}

fn block_size(block: &Block) -> usize {
    size(&block.stmts) + block.tail.as_deref().map_or(0, init_size)
}

fn flow_size(flow: &Flow) -> usize {
    match flow {
        Flow::If { then, els, .. } => {
            1 + block_size(then)
                + match els {
                    None => 0,
                    Some(Else::Block(b)) => block_size(b),
                    Some(Else::If(f)) => flow_size(f),
                }
        }
        Flow::Match { arms, .. } => 1 + arms.iter().map(|a| block_size(&a.body)).sum::<usize>(),
        Flow::Loop { body, .. }
        | Flow::While { body, .. }
        | Flow::WhileLet { body, .. }
        | Flow::For { body, .. } => 1 + block_size(body),
        Flow::Block(b) => 1 + block_size(b),
    }
}
