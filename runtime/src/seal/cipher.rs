//! The two ways a token body is protected, and the per-key secrets they use.
//!
//! Each configured secret is expanded with HKDF-SHA256 into independent subkeys, one per
//! purpose, so the AEAD key, the HMAC key and the keys of the two keyed hashes never meet.

use std::sync::OnceLock;

use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::{R20, XChaCha20, hchacha};
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Nonce, Tag, XChaCha20Poly1305, XNonce};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

use crate::error::MrtrError;
use crate::seal::keyring::StateKey;
use crate::seal::mode::StateMode;

pub(crate) const NONCE_LEN: usize = 24;
/// The part of a nonce that XChaCha20 turns into a subkey (HChaCha20); the rest is the nonce of
/// ChaCha20-Poly1305 under that subkey.
const SUBKEY_NONCE_LEN: usize = 16;
pub(crate) const AEAD_TAG_LEN: usize = 16;
/// Sign-only tokens carry a random id in place of a nonce, so two identical continuations
/// sealed in the same second still get distinct tokens (and distinct idempotency keys).
pub(crate) const TOKEN_ID_LEN: usize = 16;
pub(crate) const HMAC_TAG_LEN: usize = 32;
/// Keyed hashes of the principal and of the token are cut to 128 bits: without the key an
/// attacker cannot search for collisions offline, and 2^-128 is out of reach online.
pub(crate) const SHORT_HASH_LEN: usize = 16;

const SALT: &[u8] = b"mrtr/state-key/v1";

type HmacSha256 = Hmac<Sha256>;

/// Everything derived from one [`StateKey`].
pub(crate) struct KeyMaterial {
    aead: XChaCha20Poly1305,
    /// The same AEAD for the nonces this process draws, all of which start with its prefix
    /// ([`fill_random`]): XChaCha20-Poly1305 is ChaCha20-Poly1305 under the subkey HChaCha20
    /// derives from a nonce's first 16 bytes, so that subkey is derived once per process here
    /// instead of once per seal and open. Same tokens, byte for byte.
    own: OnceLock<ChaCha20Poly1305>,
    /// The AEAD's key again, for [`KeyMaterial::peek`] (the AEAD does not lend it out).
    aead_key: Zeroizing<[u8; 32]>,
    sign: Zeroizing<[u8; 32]>,
    principal: Zeroizing<[u8; 32]>,
}

impl KeyMaterial {
    pub(crate) fn derive(key: &StateKey) -> Self {
        let hkdf = Hkdf::<Sha256>::new(Some(SALT), key.secret());
        let expand = |info: &[u8]| {
            let mut okm = Zeroizing::new([0u8; 32]);
            // 32 bytes is far below HKDF-SHA256's 8160-byte limit.
            hkdf.expand(info, okm.as_mut())
                .expect("32 bytes is a valid HKDF-SHA256 output length");
            okm
        };
        let aead_key = expand(b"xchacha20poly1305");
        KeyMaterial {
            aead: XChaCha20Poly1305::new(&(*aead_key).into()),
            own: OnceLock::new(),
            aead_key,
            sign: expand(b"hmac-sha256"),
            principal: expand(b"principal"),
        }
    }

    /// Protects `claims`; `header` (the token's version and key id) is authenticated too.
    pub(crate) fn protect(
        &self,
        mode: StateMode,
        header: &[u8],
        claims: &[u8],
    ) -> Result<Vec<u8>, MrtrError> {
        match mode {
            StateMode::Aead => {
                let mut body = Vec::with_capacity(NONCE_LEN + claims.len() + AEAD_TAG_LEN);
                body.resize(NONCE_LEN, 0);
                fill_random(&mut body)?;
                body.extend_from_slice(claims);
                let (nonce, message) = body.split_at_mut(NONCE_LEN);
                let (prefix, counter) = nonce.split_at(SUBKEY_NONCE_LEN);
                let tag = self
                    .own(prefix_array(prefix))
                    .encrypt_inout_detached(&subkey_nonce(counter), header, message.into())
                    .map_err(|_| internal("XChaCha20-Poly1305 refused the continuation"))?;
                body.extend_from_slice(&tag);
                Ok(body)
            }
            StateMode::Hmac => {
                let mut body = Vec::with_capacity(TOKEN_ID_LEN + claims.len() + HMAC_TAG_LEN);
                body.resize(TOKEN_ID_LEN, 0);
                fill_random(&mut body)?;
                body.extend_from_slice(claims);
                let tag = self
                    .mac(&self.sign)
                    .chain_update(header)
                    .chain_update(&body)
                    .finalize()
                    .into_bytes();
                body.extend_from_slice(&tag);
                Ok(body)
            }
        }
    }

    /// Verifies and, in AEAD mode, decrypts a body; returns the claims bytes and the token's id:
    /// the first bytes of its tag, which only a key holder can produce, stable for the exact
    /// token and distinct across tokens — an idempotency key that costs no extra hash.
    ///
    /// The caller has already checked the minimum length for `mode`. A body that does not
    /// verify is handed back as it came.
    pub(crate) fn unprotect(
        &self,
        mode: StateMode,
        associated: &[u8],
        mut body: Vec<u8>,
    ) -> Result<(Vec<u8>, [u8; SHORT_HASH_LEN]), Vec<u8>> {
        let verified = match mode {
            StateMode::Aead => {
                let tag_at = body.len() - AEAD_TAG_LEN;
                let (sealed, tag) = body.split_at_mut(tag_at);
                let (nonce, message) = sealed.split_at_mut(NONCE_LEN);
                // Both lengths are fixed by the splits above.
                let (Ok(tag), Ok(nonce)) = (Tag::try_from(&*tag), XNonce::try_from(&*nonce)) else {
                    return Err(body);
                };
                // Poly1305 verification inside the crate compares tags in constant time, and
                // decrypts only once the tag verified.
                let (prefix, counter) = nonce.split_at(SUBKEY_NONCE_LEN);
                match process_prefix() {
                    Ok(own) if own[..SUBKEY_NONCE_LEN] == *prefix => self
                        .own(own)
                        .decrypt_inout_detached(
                            &subkey_nonce(counter),
                            associated,
                            message.into(),
                            &tag,
                        )
                        .is_ok(),
                    // Sealed by another process (or instance): the subkey is derived here.
                    _ => self
                        .aead
                        .decrypt_inout_detached(&nonce, associated, message.into(), &tag)
                        .is_ok(),
                }
            }
            StateMode::Hmac => {
                let (signed, tag) = body.split_at(body.len() - HMAC_TAG_LEN);
                // `verify_slice` compares in constant time.
                self.mac(&self.sign)
                    .chain_update(associated)
                    .chain_update(signed)
                    .verify_slice(tag)
                    .is_ok()
            }
        };
        if !verified {
            return Err(body);
        }
        let (prefix, tag_len) = framing(mode);
        let tag_at = body.len() - tag_len;
        let id = token_id(&body[tag_at..]);
        body.truncate(tag_at);
        body.drain(..prefix);
        Ok((body, id))
    }

    /// The first claims bytes of a body whose tag did not verify, read without authenticating
    /// them: only to name the refusal (`bound`), never to act on. In AEAD mode this is the
    /// keystream applied as the AEAD would (XChaCha20 from block 1; block 0 keys Poly1305);
    /// under another key it is noise, which `claims::peek` tells apart.
    pub(crate) fn peek(&self, mode: StateMode, body: &[u8]) -> Option<Vec<u8>> {
        const HEAD: usize = 64;
        let (prefix, tag_len) = framing(mode);
        let message = body.get(prefix..body.len().checked_sub(tag_len)?)?;
        let mut head = message[..message.len().min(HEAD)].to_vec();
        if mode == StateMode::Aead {
            let nonce = XNonce::try_from(&body[..NONCE_LEN]).ok()?;
            let mut keystream = XChaCha20::new(&(*self.aead_key).into(), &nonce);
            keystream.seek(64u64);
            keystream.apply_keystream(&mut head);
        }
        Some(head)
    }

    /// The principal as sealed: a keyed hash, so a sign-only token does not reveal the subject
    /// and a guessed subject cannot be confirmed offline.
    pub(crate) fn principal_hash(&self, subject: &str) -> [u8; SHORT_HASH_LEN] {
        short(self.mac(&self.principal).chain_update(subject.as_bytes()))
    }

    /// The AEAD under the subkey of nonces starting with `prefix`, this process's own.
    fn own(&self, prefix: &[u8; SUBKEY_NONCE_LEN]) -> &ChaCha20Poly1305 {
        self.own.get_or_init(|| {
            let mut subkey = hchacha::<R20>(&(*self.aead_key).into(), &(*prefix).into());
            let own = ChaCha20Poly1305::new(&subkey);
            subkey.zeroize();
            own
        })
    }

    fn mac(&self, key: &[u8; 32]) -> HmacSha256 {
        <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC accepts 32-byte keys")
    }
}

/// ChaCha20-Poly1305's nonce under an HChaCha20 subkey: four zero bytes, then the last eight
/// bytes of the 24-byte nonce (draft-irtf-cfrg-xchacha, as XChaCha20 builds it).
fn subkey_nonce(counter: &[u8]) -> Nonce {
    let mut nonce = Nonce::default();
    nonce[4..].copy_from_slice(counter);
    nonce
}

fn prefix_array(prefix: &[u8]) -> &[u8; SUBKEY_NONCE_LEN] {
    prefix
        .try_into()
        .expect("a nonce splits into a 16-byte prefix and the rest")
}

fn token_id(tag: &[u8]) -> [u8; SHORT_HASH_LEN] {
    let mut id = [0u8; SHORT_HASH_LEN];
    id.copy_from_slice(&tag[..SHORT_HASH_LEN]);
    id
}

pub(crate) fn min_body_len(mode: StateMode) -> usize {
    let (prefix, tag_len) = framing(mode);
    prefix + tag_len
}

/// What surrounds the claims in a body of `mode`: the nonce (or token id) before them and the
/// tag's length after.
fn framing(mode: StateMode) -> (usize, usize) {
    match mode {
        StateMode::Aead => (NONCE_LEN, AEAD_TAG_LEN),
        StateMode::Hmac => (TOKEN_ID_LEN, HMAC_TAG_LEN),
    }
}

fn short(mac: HmacSha256) -> [u8; SHORT_HASH_LEN] {
    let full = mac.finalize().into_bytes();
    let mut out = [0u8; SHORT_HASH_LEN];
    out.copy_from_slice(&full[..SHORT_HASH_LEN]);
    out
}

/// Fills a nonce (or a sign-only token id): a 128-bit prefix drawn from the OS once per process,
/// then a 64-bit counter.
///
/// XChaCha20's 192-bit nonce only has to be unique per key. The counter never repeats within a
/// process, and two processes sharing a key collide only if their random prefixes do (2^-128),
/// so this is as safe as a fresh random nonce per seal while saving a `getrandom` system call,
/// a measurable share of sealing a small token. Fewer than 24 bytes (a 16-byte token id) take the
/// prefix's first half.
fn fill_random(bytes: &mut [u8]) -> Result<(), MrtrError> {
    use std::sync::atomic::{AtomicU64, Ordering};

    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let prefix = process_prefix()?;
    let count = COUNTER.fetch_add(1, Ordering::Relaxed).to_be_bytes();
    let split = bytes.len().saturating_sub(count.len());
    let (head, tail) = bytes.split_at_mut(split);
    head.copy_from_slice(&prefix[..head.len()]);
    tail.copy_from_slice(&count[count.len() - tail.len()..]);
    Ok(())
}

/// The 128 random bits every nonce and token id of this process starts with, drawn once.
fn process_prefix() -> Result<&'static [u8; 16], MrtrError> {
    static PREFIX: OnceLock<Result<[u8; 16], String>> = OnceLock::new();
    PREFIX
        .get_or_init(|| {
            let mut prefix = [0u8; 16];
            getrandom::fill(&mut prefix)
                .map(|()| prefix)
                .map_err(|e| format!("the OS random generator failed: {e}"))
        })
        .as_ref()
        .map_err(|e| MrtrError::Internal(e.clone()))
}

fn internal(what: &str) -> MrtrError {
    MrtrError::Internal(format!("sealing requestState: {what}"))
}

#[cfg(test)]
mod nonce_tests {
    use super::*;

    fn material() -> KeyMaterial {
        KeyMaterial::derive(&StateKey::new("k1", vec![7u8; 32]).unwrap())
    }

    /// The XChaCha20-Poly1305 body of `claims` under `nonce`, as the AEAD crate builds it.
    fn reference(
        key: &KeyMaterial,
        nonce: &[u8; NONCE_LEN],
        header: &[u8],
        claims: &[u8],
    ) -> Vec<u8> {
        let mut message = claims.to_vec();
        let tag = key
            .aead
            .encrypt_inout_detached(&XNonce::from(*nonce), header, message.as_mut_slice().into())
            .unwrap();
        [&nonce[..], &message, &tag].concat()
    }

    #[test]
    fn the_cached_subkey_seals_what_xchacha20_poly1305_seals() {
        let key = material();
        for claims in [&b""[..], b"x", &[0xa5; 300]] {
            let body = key.protect(StateMode::Aead, b"x2.k1.", claims).unwrap();
            let nonce: [u8; NONCE_LEN] = body[..NONCE_LEN].try_into().unwrap();
            assert_eq!(body, reference(&key, &nonce, b"x2.k1.", claims));
            let (opened, _) = key.unprotect(StateMode::Aead, b"x2.k1.", body).unwrap();
            assert_eq!(opened, claims);
        }
    }

    #[test]
    fn a_body_from_another_process_opens_and_a_tampered_one_does_not() {
        let key = material();
        let mut foreign = [9u8; NONCE_LEN];
        foreign[..SUBKEY_NONCE_LEN].copy_from_slice(&[0x42; SUBKEY_NONCE_LEN]);
        let foreign = reference(&key, &foreign, b"h", b"claims");
        let own = key.protect(StateMode::Aead, b"h", b"claims").unwrap();
        for body in [foreign, own] {
            let (opened, _) = key.unprotect(StateMode::Aead, b"h", body.clone()).unwrap();
            assert_eq!(opened, b"claims");
            assert!(
                key.unprotect(StateMode::Aead, b"other header", body.clone())
                    .is_err()
            );
            for at in [0, SUBKEY_NONCE_LEN, NONCE_LEN, body.len() - 1] {
                let mut tampered = body.clone();
                tampered[at] ^= 1;
                assert!(
                    key.unprotect(StateMode::Aead, b"h", tampered).is_err(),
                    "byte {at}"
                );
            }
        }
    }

    #[test]
    fn nonces_never_repeat_within_a_process_and_share_the_random_prefix() {
        let mut seen = std::collections::HashSet::new();
        let mut first = [0u8; NONCE_LEN];
        fill_random(&mut first).unwrap();
        for _ in 0..10_000 {
            let mut nonce = [0u8; NONCE_LEN];
            fill_random(&mut nonce).unwrap();
            assert_eq!(nonce[..16], first[..16], "one prefix per process");
            assert!(seen.insert(nonce), "a nonce repeated");
        }
        let mut id = [0u8; TOKEN_ID_LEN];
        fill_random(&mut id).unwrap();
        assert_eq!(id[..8], first[..8]);
    }
}
