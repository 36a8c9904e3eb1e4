//! What a token is bound to, as the sealer checks it: the audience, the request's bind digest
//! and the principal's keyed hash.
//!
//! Since token format 2 (`x2`/`h2`) the binding is not sealed in the claims but authenticated
//! beside them, as the cipher's associated data: a token presented against another binding
//! fails its tag. Less the check below, that saves 45 bytes (60 with a principal) in every
//! token, which crosses the wire twice per round. To keep telling an operator *why* a token
//! failed (another request, another service, another principal, or a forgery or key mix-up),
//! the claims keep a 3-byte [`Check`] of the binding (4 with a principal): read only after the
//! tag failed, it names the refusal and is never trusted for anything else.
//!
//! Format 1 tokens (`x1`/`h1`, sealed by builds before format 2) carry the binding in full and
//! are still opened, so a rolling upgrade does not refuse the rounds in flight.

use subtle::ConstantTimeEq;

use crate::seal::keyring::MAX_KID_LEN;

pub(crate) const AUDIENCE_LEN: usize = 16;
pub(crate) const PRINCIPAL_LEN: usize = 16;

/// The binding a token is sealed under, or presented against.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Bound {
    pub audience: [u8; AUDIENCE_LEN],
    pub bind: [u8; 32],
    pub principal: Option<[u8; PRINCIPAL_LEN]>,
}

/// A few bytes of a [`Bound`], sealed with a format 2 token to name a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Check {
    pub bind: [u8; 2],
    pub audience: u8,
    /// The first byte of the principal's hash, if the token was bound to one.
    pub principal: Option<u8>,
}

/// The token's header, then the binding: what the tag authenticates besides the body. On the
/// stack: the longest header (version, kid, two dots) and binding fit in 104 bytes.
pub(crate) struct AssociatedData {
    bytes: [u8; ASSOCIATED_MAX],
    len: usize,
}

const HEADER_MAX: usize = 2 + 1 + MAX_KID_LEN + 1;
const ASSOCIATED_MAX: usize = HEADER_MAX + AUDIENCE_LEN + 32 + 1 + PRINCIPAL_LEN;

impl AssociatedData {
    /// The header alone (format 1, whose claims carry the binding).
    pub fn header(header: &str) -> Self {
        let mut data = AssociatedData {
            bytes: [0; ASSOCIATED_MAX],
            len: 0,
        };
        data.push(header.as_bytes());
        data
    }

    /// The header and the binding (format 2). A marker byte tells a binding with a principal
    /// from one without, so no two bindings authenticate the same bytes.
    pub fn bound(header: &str, bound: &Bound) -> Self {
        let mut data = Self::header(header);
        data.push(&bound.audience);
        data.push(&bound.bind);
        match &bound.principal {
            Some(principal) => {
                data.push(&[1]);
                data.push(principal);
            }
            None => data.push(&[0]),
        }
        data
    }

    fn push(&mut self, bytes: &[u8]) {
        // Headers come from `token::header` or `token::parse`, both of which bound the kid.
        self.bytes[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl Bound {
    pub fn check(&self) -> Check {
        Check {
            bind: [self.bind[0], self.bind[1]],
            audience: self.audience[0],
            principal: self.principal.map(|principal| principal[0]),
        }
    }

    /// Why a token sealed under `sealed` does not open under `self`, most telling first; `None`
    /// when they agree (a format 2 token whose tag failed then is a forgery, or was sealed
    /// under another secret of the same key id).
    pub fn differs_from(&self, sealed: &Bound) -> Option<&'static str> {
        refusal(Matches {
            audience: bool::from(sealed.audience.ct_eq(&self.audience)),
            bind: bool::from(sealed.bind.ct_eq(&self.bind)),
            principal: sealed.principal.as_ref().map(|sealed| {
                let presented = self.principal.unwrap_or_default();
                bool::from(sealed.ct_eq(&presented))
            }),
            presented_principal: self.principal.is_some(),
        })
    }

    /// [`Bound::differs_from`] from the check a format 2 token keeps.
    pub fn differs_from_check(&self, sealed: Check) -> Option<&'static str> {
        let presented = self.check();
        refusal(Matches {
            audience: sealed.audience == presented.audience,
            bind: sealed.bind == presented.bind,
            principal: sealed
                .principal
                .map(|sealed| Some(sealed) == presented.principal),
            presented_principal: presented.principal.is_some(),
        })
    }
}

/// How a sealed binding compares with the presented one, part by part.
struct Matches {
    audience: bool,
    bind: bool,
    /// `None` when the token was sealed without a principal, else whether the presented one
    /// matches it.
    principal: Option<bool>,
    presented_principal: bool,
}

/// The refusal that names the first part that differs, most telling first.
fn refusal(matches: Matches) -> Option<&'static str> {
    if !matches.audience {
        return Some("minted for another audience");
    }
    if !matches.bind {
        return Some("bound to another request (method, target or arguments differ)");
    }
    match (matches.principal, matches.presented_principal) {
        (None, false) | (Some(true), true) => None,
        (Some(_), true) => Some("bound to another principal"),
        (Some(_), false) => Some("bound to a principal, presented without one"),
        (None, true) => Some("minted without a principal, presented with one"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(principal: Option<u8>) -> Bound {
        Bound {
            audience: [9; AUDIENCE_LEN],
            bind: [7; 32],
            principal: principal.map(|fill| [fill; PRINCIPAL_LEN]),
        }
    }

    #[test]
    fn the_check_names_the_same_refusal_as_the_full_binding() {
        let sealed_cases = [bound(None), bound(Some(3))];
        let mut presented_cases = vec![bound(None), bound(Some(3)), bound(Some(4))];
        let mut other_request = bound(None);
        other_request.bind[1] ^= 1;
        let mut other_audience = bound(Some(3));
        other_audience.audience[0] ^= 1;
        presented_cases.extend([other_request, other_audience]);
        for sealed in &sealed_cases {
            for presented in &presented_cases {
                assert_eq!(
                    presented.differs_from_check(sealed.check()),
                    presented.differs_from(sealed),
                    "sealed {sealed:?}, presented {presented:?}"
                );
            }
        }
        assert_eq!(bound(Some(3)).differs_from(&bound(Some(3))), None);
        assert_eq!(
            bound(Some(4)).differs_from(&bound(Some(3))),
            Some("bound to another principal")
        );
    }

    #[test]
    fn no_two_bindings_authenticate_the_same_bytes() {
        let header = "x2.k1.";
        let with = AssociatedData::bound(header, &bound(Some(0)));
        let without = AssociatedData::bound(header, &bound(None));
        assert_ne!(with.as_bytes(), without.as_bytes());
        assert!(!with.as_bytes().starts_with(without.as_bytes()));
        let longest = "x2.".to_owned() + &"k".repeat(MAX_KID_LEN) + ".";
        let full = AssociatedData::bound(&longest, &bound(Some(1)));
        assert_eq!(full.as_bytes().len(), ASSOCIATED_MAX);
    }
}
