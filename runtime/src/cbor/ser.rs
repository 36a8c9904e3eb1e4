//! Carried locals into CBOR through serde, item for item as ciborium writes them (floats aside,
//! see the module above): text keys, definite lengths where serde knows them, an enum variant
//! as its name or a one-entry map, a 128-bit integer past 64 bits as a bignum.

use serde::ser::{self, Serialize};

use super::error::Error;
use super::{
    ARRAY, BREAK, BYTES, FALSE, INDEFINITE, MAP, NEGATIVE, NEGATIVE_BIGNUM, NULL, POSITIVE_BIGNUM,
    TAG, TRUE, UNSIGNED, head, significant, write_float, write_text,
};

/// Appends `value` to `out` as one CBOR item.
pub(crate) fn to_vec<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), Error> {
    value.serialize(&mut Encoder { out })
}

struct Encoder<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Encoder<'a> {
    fn text(&mut self, text: &str) {
        write_text(self.out, text);
    }

    /// A container's head: its count, or the indefinite marker that a break will close.
    fn open<'e>(&'e mut self, major: u8, len: Option<usize>) -> Collection<'e, 'a> {
        match len {
            Some(len) => head(self.out, major, len as u64),
            None => self.out.push(major << 5 | INDEFINITE),
        }
        Collection {
            encoder: self,
            indefinite: len.is_none(),
        }
    }

    /// A variant with content: a one-entry map from its name.
    fn variant(&mut self, variant: &str) {
        head(self.out, MAP, 1);
        self.text(variant);
    }

    /// A 128-bit integer's magnitude past 64 bits, without leading zero bytes.
    fn bignum(&mut self, tag: u64, magnitude: u128) {
        let bytes = magnitude.to_be_bytes();
        let significant = significant(&bytes);
        head(self.out, TAG, tag);
        head(self.out, BYTES, significant.len() as u64);
        self.out.extend_from_slice(significant);
    }
}

impl<'e, 'a> ser::Serializer for &'e mut Encoder<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Collection<'e, 'a>;
    type SerializeTuple = Collection<'e, 'a>;
    type SerializeTupleStruct = Collection<'e, 'a>;
    type SerializeTupleVariant = Collection<'e, 'a>;
    type SerializeMap = Collection<'e, 'a>;
    type SerializeStruct = Collection<'e, 'a>;
    type SerializeStructVariant = Collection<'e, 'a>;

    fn serialize_bool(self, value: bool) -> Result<(), Error> {
        self.out.push(if value { TRUE } else { FALSE });
        Ok(())
    }

    fn serialize_i8(self, value: i8) -> Result<(), Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i16(self, value: i16) -> Result<(), Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i32(self, value: i32) -> Result<(), Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i64(self, value: i64) -> Result<(), Error> {
        match u64::try_from(value) {
            Ok(unsigned) => head(self.out, UNSIGNED, unsigned),
            // Major type 1 holds -1 - n, which is n's bits inverted.
            Err(_) => head(self.out, NEGATIVE, !(value as u64)),
        }
        Ok(())
    }

    fn serialize_i128(self, value: i128) -> Result<(), Error> {
        if let Ok(small) = i64::try_from(value) {
            return self.serialize_i64(small);
        }
        match u128::try_from(value) {
            Ok(positive) => self.serialize_u128(positive),
            Err(_) => {
                let magnitude = !(value as u128);
                match u64::try_from(magnitude) {
                    Ok(small) => head(self.out, NEGATIVE, small),
                    Err(_) => self.bignum(NEGATIVE_BIGNUM, magnitude),
                }
                Ok(())
            }
        }
    }

    fn serialize_u8(self, value: u8) -> Result<(), Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u16(self, value: u16) -> Result<(), Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u32(self, value: u32) -> Result<(), Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u64(self, value: u64) -> Result<(), Error> {
        head(self.out, UNSIGNED, value);
        Ok(())
    }

    fn serialize_u128(self, value: u128) -> Result<(), Error> {
        match u64::try_from(value) {
            Ok(small) => head(self.out, UNSIGNED, small),
            Err(_) => self.bignum(POSITIVE_BIGNUM, value),
        }
        Ok(())
    }

    fn serialize_f32(self, value: f32) -> Result<(), Error> {
        self.serialize_f64(value.into())
    }

    fn serialize_f64(self, value: f64) -> Result<(), Error> {
        write_float(self.out, value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Error> {
        self.text(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, value: &str) -> Result<(), Error> {
        self.text(value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), Error> {
        head(self.out, BYTES, value.len() as u64);
        self.out.extend_from_slice(value);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.out.push(NULL);
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.text(variant);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.variant(variant);
        value.serialize(self)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Collection<'e, 'a>, Error> {
        Ok(self.open(ARRAY, len))
    }

    fn serialize_tuple(self, len: usize) -> Result<Collection<'e, 'a>, Error> {
        Ok(self.open(ARRAY, Some(len)))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Collection<'e, 'a>, Error> {
        Ok(self.open(ARRAY, Some(len)))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Collection<'e, 'a>, Error> {
        self.variant(variant);
        Ok(self.open(ARRAY, Some(len)))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Collection<'e, 'a>, Error> {
        Ok(self.open(MAP, len))
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Collection<'e, 'a>, Error> {
        Ok(self.open(MAP, Some(len)))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Collection<'e, 'a>, Error> {
        self.variant(variant);
        Ok(self.open(MAP, Some(len)))
    }

    /// As ciborium: types that write themselves differently for people (addresses, times)
    /// take their compact form, so tokens it sealed still read.
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// An array or map being written: its items go straight to the encoder, and an indefinite one
/// is closed by a break.
pub(crate) struct Collection<'e, 'a> {
    encoder: &'e mut Encoder<'a>,
    indefinite: bool,
}

impl Collection<'_, '_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.encoder)
    }

    fn close(self) -> Result<(), Error> {
        if self.indefinite {
            self.encoder.out.push(BREAK);
        }
        Ok(())
    }
}

/// Six of the compound traits differ only in their method's name and whether an entry comes
/// with a field name (`(key)`): each item goes straight to the encoder, and `end` closes the
/// collection. A map's key and value come separately (below).
macro_rules! collection {
    ($($trait:ident::$method:ident($($key:ident)?)),* $(,)?) => {$(
        impl ser::$trait for Collection<'_, '_> {
            type Ok = ();
            type Error = Error;

            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<(), Error> {
                $(self.encoder.text($key);)?
                self.item(value)
            }

            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

collection!(
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(key),
    SerializeStructVariant::serialize_field(key),
);

impl ser::SerializeMap for Collection<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.item(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }

    fn end(self) -> Result<(), Error> {
        self.close()
    }
}
