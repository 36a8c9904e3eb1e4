//! `break`/`continue` to an opened loop: the loop is no longer a Rust loop, so each jump
//! becomes "park what the target needs, set the program counter, continue the dispatch".

use syn::visit_mut::{self, VisitMut};

use super::*;
use crate::tool::syntax::Syntax;

impl Gen<'_> {
    /// The code of a jump to an opened loop, and what must be defined before the statement
    /// it sits in (see [`JumpFiller`]).
    pub(super) fn jump(&self, jump: usize, held: &Held) -> (TokenStream, TokenStream) {
        let jump = &self.body.jumps[jump];
        match &jump.kind {
            JumpKind::Continue => {
                let latch = self.latch(jump.target, held);
                (TokenStream::new(), quote!({ #latch }))
            }
            JumpKind::Break(value) => {
                let (prelude, value) = self.fill_jumps_opt(value.as_ref(), held);
                let exit = self.exit(jump.target, value.map(|v| quote!(#v)), held);
                (prelude, quote!({ #exit }))
            }
        }
    }

    /// The item with its jumps filled in, and a prelude to emit right before the statement the
    /// item belongs to.
    pub(super) fn fill_jumps<T: Syntax>(&self, mut item: T, held: &Held) -> (TokenStream, T) {
        let mut filler = JumpFiller::new(self, held);
        item.accept_mut(&mut filler);
        (filler.prelude, item)
    }

    pub(super) fn fill_jumps_opt(
        &self,
        expr: Option<&Expr>,
        held: &Held,
    ) -> (TokenStream, Option<Expr>) {
        match expr {
            Some(e) => {
                let (prelude, e) = self.fill_jumps(e.clone(), held);
                (prelude, Some(e))
            }
            None => (TokenStream::new(), None),
        }
    }
}

/// Replaces `__mrtr_jump!(n)` placeholders with the jump's code under the current held set.
///
/// A jump under a binding that hides a held one (`if let Some(item) = .. { break }` with an
/// outer `item` to park) cannot name the outer binding (the analysis recorded which names are
/// bound around each jump). Its park goes into a `macro_rules!` defined before the statement,
/// where the outer binding is the one in scope: a macro's body names the locals visible at its
/// definition (macro hygiene), so invoking it at the jump parks the right value.
pub(super) struct JumpFiller<'g, 'a> {
    machine: &'g Gen<'a>,
    held: &'g Held,
    /// The park macros of hidden bindings, for before the statement.
    prelude: TokenStream,
}

impl<'g, 'a> JumpFiller<'g, 'a> {
    pub(super) fn new(machine: &'g Gen<'a>, held: &'g Held) -> Self {
        JumpFiller {
            machine,
            held,
            prelude: TokenStream::new(),
        }
    }

    /// Bindings the jump parks whose names a binding around the jump hides.
    fn hidden_parks(&self, jump: usize) -> Held {
        let j = &self.machine.body.jumps[jump];
        let construct = &self.machine.body.constructs[j.target];
        let target = match j.kind {
            JumpKind::Break(_) => &construct.live_join,
            JumpKind::Continue => &construct.live_head,
        };
        target
            .iter()
            .copied()
            .filter(|&b| self.machine.parks(b, self.held))
            .filter(|&b| {
                let name = self.machine.binding(b).ident.to_string();
                j.inner_names.contains(&name)
            })
            .collect()
    }

    /// The code of jump `id`, its parks of hidden bindings deferred to a macro.
    fn fill(&mut self, id: usize) -> TokenStream {
        let hidden = self.hidden_parks(id);
        if hidden.is_empty() {
            let (prelude, code) = self.machine.jump(id, self.held);
            self.prelude.extend(prelude);
            return code;
        }
        let name = format_ident!("__mrtr_park_{}", id);
        let park = self.machine.park(&hidden, self.held);
        let (define, invoke) = Gen::deferred_park(name, park);
        self.prelude.extend(define);
        let visible: Held = self.held.difference(&hidden).copied().collect();
        let (prelude, code) = self.machine.jump(id, &visible);
        self.prelude.extend(prelude);
        quote!({ #invoke #code })
    }
}

impl VisitMut for JumpFiller<'_, '_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(m) = expr
            && m.mac.path.is_ident("__mrtr_jump")
            && let Ok(lit) = m.mac.parse_body::<syn::LitInt>()
            && let Ok(id) = lit.base10_parse::<usize>()
        {
            let code = self.fill(id);
            *expr = syn::parse_quote!(#code);
            return;
        }
        match expr {
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }
}
