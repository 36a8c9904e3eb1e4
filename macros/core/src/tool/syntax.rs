//! One trait over the pieces of syntax the lowering walks (expressions, statements, blocks,
//! patterns), so that each query made with a `syn` visitor is written once, not once per kind.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Pat, Stmt};

pub trait Syntax {
    fn accept<'ast>(&'ast self, visitor: &mut impl Visit<'ast>);
    fn accept_mut(&mut self, visitor: &mut impl VisitMut);
}

macro_rules! syntax {
    ($($ty:ty => $visit:ident, $visit_mut:ident;)*) => {$(
        impl Syntax for $ty {
            fn accept<'ast>(&'ast self, visitor: &mut impl Visit<'ast>) {
                visitor.$visit(self);
            }

            fn accept_mut(&mut self, visitor: &mut impl VisitMut) {
                visitor.$visit_mut(self);
            }
        }
    )*};
}

syntax! {
    Expr => visit_expr, visit_expr_mut;
    Stmt => visit_stmt, visit_stmt_mut;
    Block => visit_block, visit_block_mut;
    Pat => visit_pat, visit_pat_mut;
}

impl<T: Syntax> Syntax for Box<T> {
    fn accept<'ast>(&'ast self, visitor: &mut impl Visit<'ast>) {
        (**self).accept(visitor);
    }

    fn accept_mut(&mut self, visitor: &mut impl VisitMut) {
        (**self).accept_mut(visitor);
    }
}

/// `x += ..`, `x <<= ..` and the other operators that assign to their left operand.
pub fn is_compound_assignment(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::AddAssign(_)
            | syn::BinOp::SubAssign(_)
            | syn::BinOp::MulAssign(_)
            | syn::BinOp::DivAssign(_)
            | syn::BinOp::RemAssign(_)
            | syn::BinOp::BitXorAssign(_)
            | syn::BinOp::BitAndAssign(_)
            | syn::BinOp::BitOrAssign(_)
            | syn::BinOp::ShlAssign(_)
            | syn::BinOp::ShrAssign(_)
    )
}
