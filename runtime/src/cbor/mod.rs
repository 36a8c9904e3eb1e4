//! CBOR (RFC 8949) as the runtime writes it into a continuation: the item heads shared by both
//! codecs, [`json`] for the JSON values a token holds (pending asks' params, answers) and
//! [`to_vec`]/[`from_slice`] for carried locals through serde.
//!
//! Both write what ciborium writes for the same value, except that a float is never narrowed to
//! half precision, and both read what ciborium wrote: tokens sealed by a build that used it open
//! unchanged, and an older instance in a rolling upgrade reads the new ones.

mod de;
mod error;
pub(crate) mod json;
mod ser;
#[cfg(test)]
mod tests;

pub(crate) use de::from_slice;
pub(crate) use ser::to_vec;

const UNSIGNED: u8 = 0;
const NEGATIVE: u8 = 1;
const BYTES: u8 = 2;
const TEXT: u8 = 3;
const ARRAY: u8 = 4;
const MAP: u8 = 5;
const TAG: u8 = 6;
const SIMPLE: u8 = 7;

/// The additional information of an indefinite length, and the item that ends one.
const INDEFINITE: u8 = 31;
const BREAK: u8 = 0xff;

const FALSE: u8 = 0xf4;
const TRUE: u8 = 0xf5;
const NULL: u8 = 0xf6;
const UNDEFINED: u8 = 0xf7;
const HALF: u8 = 0xf9;
const SINGLE: u8 = 0xfa;
const DOUBLE: u8 = 0xfb;

/// The tags of a big integer's magnitude bytes: how ciborium writes a 128-bit integer that
/// does not fit 64 bits.
const POSITIVE_BIGNUM: u64 = 2;
const NEGATIVE_BIGNUM: u64 = 3;

/// The initial byte(s): major type and argument, in the shortest form.
fn head(out: &mut Vec<u8>, major: u8, argument: u64) {
    let major = major << 5;
    if argument < 24 {
        out.push(major | argument as u8);
    } else if let Ok(byte) = u8::try_from(argument) {
        out.extend_from_slice(&[major | 24, byte]);
    } else if let Ok(short) = u16::try_from(argument) {
        out.push(major | 25);
        out.extend_from_slice(&short.to_be_bytes());
    } else if let Ok(word) = u32::try_from(argument) {
        out.push(major | 26);
        out.extend_from_slice(&word.to_be_bytes());
    } else {
        out.push(major | 27);
        out.extend_from_slice(&argument.to_be_bytes());
    }
}

/// A text string: its head, then its UTF-8 bytes.
fn write_text(out: &mut Vec<u8>, text: &str) {
    head(out, TEXT, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// A bignum's magnitude bytes without their leading zeros, as ciborium writes them.
fn significant(bytes: &[u8]) -> &[u8] {
    &bytes[bytes.iter().take_while(|&&b| b == 0).count()..]
}

/// A float in single precision when that loses nothing, else double.
fn write_float(out: &mut Vec<u8>, float: f64) {
    let single = float as f32;
    if f64::from(single) == float {
        out.push(SINGLE);
        out.extend_from_slice(&single.to_be_bytes());
    } else {
        out.push(DOUBLE);
        out.extend_from_slice(&float.to_be_bytes());
    }
}

/// The argument that follows an initial byte with `minor`; indefinite lengths are refused.
fn argument(input: &mut &[u8], minor: u8) -> Result<u64, String> {
    Ok(match minor {
        0..=23 => u64::from(minor),
        24 => u64::from(take(input, 1)?[0]),
        25 => u64::from(u16::from_be_bytes(array(input)?)),
        26 => u64::from(u32::from_be_bytes(array(input)?)),
        27 => u64::from_be_bytes(array(input)?),
        _ => {
            return Err(format!(
                "additional information {minor} (indefinite or reserved)"
            ));
        }
    })
}

/// A count of items, each at least one byte: more than the bytes left is truncation, caught
/// before anything is allocated for it.
fn length(input: &[u8], count: u64) -> Result<usize, String> {
    usize::try_from(count)
        .ok()
        .filter(|&count| count <= input.len())
        .ok_or_else(|| "truncated: more items than bytes".to_owned())
}

fn take<'a>(input: &mut &'a [u8], len: usize) -> Result<&'a [u8], String> {
    if input.len() < len {
        return Err("truncated".into());
    }
    let (head, rest) = input.split_at(len);
    *input = rest;
    Ok(head)
}

fn array<const N: usize>(input: &mut &[u8]) -> Result<[u8; N], String> {
    let mut out = [0u8; N];
    out.copy_from_slice(take(input, N)?);
    Ok(out)
}

/// IEEE 754 binary16 to f64 (RFC 8949, appendix D).
fn half_to_f64(half: u16) -> f64 {
    let exponent = i32::from((half >> 10) & 0x1f);
    let mantissa = f64::from(half & 0x3ff);
    let magnitude = match exponent {
        0 => mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (mantissa + 1024.0) * 2f64.powi(exponent - 25),
    };
    if half & 0x8000 != 0 {
        -magnitude
    } else {
        magnitude
    }
}
