//! Carried locals out of CBOR through serde, straight from the opened token's bytes.
//!
//! Self-describing, as a carried local may need (`serde_json::Value`, untagged and internally
//! tagged enums, flattened structs all ask "what comes next?"): every request is answered from
//! the item's own head. Texts and byte strings are handed to the visitor borrowed, so a field
//! name or an enum's variant costs no copy; a value that keeps them copies them itself.
//!
//! Reads everything ciborium writes for serde: definite and indefinite arrays and maps, floats of
//! every width, bignums for 128-bit integers, `undefined` as null. The token's AEAD already
//! vouches for these bytes, so anything else (other tags, chunked strings, a simple value serde
//! has no name for) is an error, never a guess; so are truncation, nesting past [`MAX_DEPTH`]
//! and items a value left unread.

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};
use serde::forward_to_deserialize_any;

use super::error::Error;
use super::{
    ARRAY, BREAK, BYTES, DOUBLE, FALSE, HALF, INDEFINITE, MAP, NEGATIVE, NEGATIVE_BIGNUM, NULL,
    POSITIVE_BIGNUM, SINGLE, TAG, TEXT, TRUE, UNDEFINED, UNSIGNED, argument, array, half_to_f64,
    length, significant, take,
};

/// As deep as ciborium lets serde nest, so that every value it carried still reads.
pub(super) const MAX_DEPTH: usize = 256;

/// Reads one item from the front of `input` as a `T`, leaving the rest.
pub(crate) fn from_slice<T: DeserializeOwned>(input: &mut &[u8]) -> Result<T, Error> {
    let mut decoder = Decoder {
        input,
        depth_left: MAX_DEPTH,
    };
    let value = T::deserialize(&mut decoder)?;
    *input = decoder.input;
    Ok(value)
}

struct Decoder<'de> {
    input: &'de [u8],
    depth_left: usize,
}

impl<'de> Decoder<'de> {
    fn peek(&self) -> Result<u8, Error> {
        self.input
            .first()
            .copied()
            .ok_or_else(|| Error("truncated".into()))
    }

    fn byte(&mut self) -> Result<u8, Error> {
        Ok(take(&mut self.input, 1)?[0])
    }

    fn argument(&mut self, initial: u8) -> Result<u64, Error> {
        Ok(argument(&mut self.input, initial & 0x1f)?)
    }

    /// The bytes of a definite byte or text string.
    fn string(&mut self, initial: u8) -> Result<&'de [u8], Error> {
        if initial & 0x1f == INDEFINITE {
            return Err(Error("a string in chunks".into()));
        }
        let len = self.argument(initial)?;
        let len = usize::try_from(len).map_err(|_| Error("a string longer than memory".into()))?;
        Ok(take(&mut self.input, len)?)
    }

    fn text(&mut self, initial: u8) -> Result<&'de str, Error> {
        std::str::from_utf8(self.string(initial)?)
            .map_err(|_| Error("text that is not UTF-8".into()))
    }

    /// An array's or map's count of items (entries for a map), `None` when a break ends it.
    fn count(&mut self, initial: u8) -> Result<Option<usize>, Error> {
        if initial & 0x1f == INDEFINITE {
            return Ok(None);
        }
        let count = self.argument(initial)?;
        Ok(Some(length(self.input, count)?))
    }

    /// Visits an array or map's items one level deeper, and checks the visitor read them all.
    fn items<V: Visitor<'de>>(
        &mut self,
        left: Option<usize>,
        visit: impl FnOnce(&mut Items<'_, 'de>) -> Result<V::Value, Error>,
    ) -> Result<V::Value, Error> {
        if self.depth_left == 0 {
            return Err(Error(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        self.depth_left -= 1;
        let mut items = Items {
            decoder: self,
            left,
        };
        let value = visit(&mut items)?;
        if items.next()? {
            return Err(Error("items left unread".into()));
        }
        self.depth_left += 1;
        Ok(value)
    }

    fn simple<V: Visitor<'de>>(&mut self, initial: u8, visitor: V) -> Result<V::Value, Error> {
        match initial {
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            NULL | UNDEFINED => visitor.visit_none(),
            HALF => visitor.visit_f64(half_to_f64(u16::from_be_bytes(array(&mut self.input)?))),
            SINGLE => visitor.visit_f64(f32::from_be_bytes(array(&mut self.input)?).into()),
            DOUBLE => visitor.visit_f64(f64::from_be_bytes(array(&mut self.input)?)),
            other => Err(Error(format!("simple value {other:#04x}"))),
        }
    }

    /// A bignum: the only tag a serde value is written with.
    fn bignum<V: Visitor<'de>>(&mut self, initial: u8, visitor: V) -> Result<V::Value, Error> {
        let tag = self.argument(initial)?;
        if tag != POSITIVE_BIGNUM && tag != NEGATIVE_BIGNUM {
            return Err(Error(format!("tag {tag}")));
        }
        let bytes_head = self.byte()?;
        if bytes_head >> 5 != BYTES {
            return Err(Error("a bignum that is not a byte string".into()));
        }
        let significant = significant(self.string(bytes_head)?);
        if significant.len() > 16 {
            return Err(Error("a bignum past 128 bits".into()));
        }
        let mut be = [0u8; 16];
        be[16 - significant.len()..].copy_from_slice(significant);
        let magnitude = u128::from_be_bytes(be);
        if tag == POSITIVE_BIGNUM {
            return visitor.visit_u128(magnitude);
        }
        match i128::try_from(magnitude) {
            Ok(magnitude) => visitor.visit_i128(-1 - magnitude),
            Err(_) => Err(Error("a negative bignum below i128::MIN".into())),
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Decoder<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let initial = self.byte()?;
        match initial >> 5 {
            UNSIGNED => visitor.visit_u64(self.argument(initial)?),
            NEGATIVE => {
                let n = self.argument(initial)?;
                match i64::try_from(n) {
                    Ok(n) => visitor.visit_i64(-1 - n),
                    Err(_) => visitor.visit_i128(-1 - i128::from(n)),
                }
            }
            BYTES => visitor.visit_borrowed_bytes(self.string(initial)?),
            TEXT => visitor.visit_borrowed_str(self.text(initial)?),
            ARRAY => {
                let left = self.count(initial)?;
                self.items::<V>(left, |items| visitor.visit_seq(items))
            }
            MAP => {
                let left = self.count(initial)?;
                self.items::<V>(left, |items| visitor.visit_map(items))
            }
            TAG => self.bignum(initial, visitor),
            // Major type 7: the simple values and floats.
            _ => self.simple(initial, visitor),
        }
    }

    /// A text is read in place, without the dispatch of `deserialize_any`: names and strings are
    /// most of what a carried struct holds.
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? >> 5 {
            TEXT => {
                let initial = self.byte()?;
                visitor.visit_borrowed_str(self.text(initial)?)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            NULL | UNDEFINED => {
                self.byte()?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.byte()? {
            NULL | UNDEFINED => visitor.visit_unit(),
            other => Err(Error(format!(
                "expected null for a unit, found {other:#04x}"
            ))),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// A variant is its name alone, or a one-entry map from its name to its content.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let initial = self.peek()?;
        match initial >> 5 {
            TEXT => visitor.visit_enum(Variant {
                decoder: self,
                content: false,
            }),
            MAP => {
                self.byte()?;
                if self.count(initial)? != Some(1) {
                    return Err(Error("an enum as a map of other than one entry".into()));
                }
                // The entry's key and value are the variant's name and content, read by the
                // variant access below; `items` only counts the level.
                self.items::<V>(Some(0), |items| {
                    visitor.visit_enum(Variant {
                        decoder: &mut *items.decoder,
                        content: true,
                    })
                })
            }
            _ => Err(Error(format!(
                "expected an enum variant, found {initial:#04x}"
            ))),
        }
    }

    /// Skips one item whole, nested as deep as reading would go and under the same limit.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(de::IgnoredAny)?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf seq tuple
        tuple_struct map struct
    }
}

/// The items of an array or the entries of a map, counted or ended by a break.
struct Items<'a, 'de> {
    decoder: &'a mut Decoder<'de>,
    /// Items still to come; `Some(0)` once a break has ended an indefinite one.
    left: Option<usize>,
}

impl Items<'_, '_> {
    /// Whether another item follows; consumes the break that ends an indefinite one.
    fn next(&mut self) -> Result<bool, Error> {
        match &mut self.left {
            Some(0) => Ok(false),
            Some(left) => {
                *left -= 1;
                Ok(true)
            }
            None if self.decoder.peek()? == BREAK => {
                self.decoder.byte()?;
                self.left = Some(0);
                Ok(false)
            }
            None => Ok(true),
        }
    }
}

impl<'de> de::SeqAccess<'de> for &mut Items<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if !self.next()? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.decoder).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

impl<'de> de::MapAccess<'de> for &mut Items<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if !self.next()? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.decoder).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.decoder)
    }

    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

/// An enum's variant: its name next in the input, then its content when it has one.
struct Variant<'a, 'de> {
    decoder: &'a mut Decoder<'de>,
    content: bool,
}

impl<'de> de::EnumAccess<'de> for Variant<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self), Error> {
        let name = seed.deserialize(&mut *self.decoder)?;
        Ok((name, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        if self.content {
            de::Deserialize::deserialize(&mut *self.decoder)
        } else {
            Ok(())
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        self.with_content()?;
        seed.deserialize(&mut *self.decoder)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.with_content()?;
        de::Deserializer::deserialize_any(&mut *self.decoder, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.with_content()?;
        de::Deserializer::deserialize_any(&mut *self.decoder, visitor)
    }
}

impl Variant<'_, '_> {
    fn with_content(&self) -> Result<(), Error> {
        if self.content {
            Ok(())
        } else {
            Err(Error(
                "a variant with content written as its name alone".into(),
            ))
        }
    }
}
