//! The views' JSON writer: a [`serde::Serializer`] that writes compact
//! JSON straight into a byte buffer, the same text `serde_json` writes,
//! with less work on the hot path of a list: a struct's field names (the
//! views' own identifiers) are copied as they are, and a string is copied
//! whole when it holds nothing to escape (a quote, a backslash, a control
//! character), which is almost always; otherwise it is escaped by
//! `serde_json`. Numbers are written by `serde_json`'s formatter.

use std::fmt::{self, Write as _};

use serde::ser::{self, Serialize};
use serde_json::ser::{CompactFormatter, Formatter};

/// `value` as compact JSON.
pub(crate) fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let mut out = Writer {
        buf: Vec::with_capacity(1024),
    };
    value.serialize(&mut out)?;
    Ok(out.buf)
}

/// Why a value could not be written (a map key that is not a string, or a
/// value's own error).
#[derive(Debug)]
pub(crate) struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self(msg.to_string())
    }
}

struct Writer {
    buf: Vec<u8>,
}

/// Whether JSON needs `b` escaped inside a string.
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether any byte of `text` needs escaping: eight bytes at a time (a
/// byte below 0x20, a quote or a backslash sets its word's flag), the tail
/// one by one.
fn any_escape(text: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGH;
    let mut chunks = text.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // Bytes below 0x20: w - 0x20 borrows into the high bit where w's
        // high bit is clear.
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        if control
            | has_zero(w ^ (ONES * u64::from(b'"')))
            | has_zero(w ^ (ONES * u64::from(b'\\')))
            != 0
        {
            return true;
        }
    }
    chunks.remainder().iter().copied().any(needs_escape)
}

impl Writer {
    fn string(&mut self, s: &str) {
        if any_escape(s.as_bytes()) {
            // serde_json escapes as JSON requires; writing to a Vec cannot
            // fail.
            let _ = serde_json::to_writer(&mut self.buf, s);
        } else {
            self.buf.push(b'"');
            self.buf.extend_from_slice(s.as_bytes());
            self.buf.push(b'"');
        }
    }

    /// A string from `Display`: written in place, escaped afterwards in
    /// the rare case it needs it.
    fn display<T: fmt::Display + ?Sized>(&mut self, value: &T) {
        self.buf.push(b'"');
        let start = self.buf.len();
        let _ = write!(Bytes(&mut self.buf), "{value}");
        if any_escape(&self.buf[start..]) {
            let text = String::from_utf8_lossy(&self.buf[start..]).into_owned();
            self.buf.truncate(start - 1);
            self.string(&text);
        } else {
            self.buf.push(b'"');
        }
    }
}

/// `fmt::Write` into a byte buffer.
struct Bytes<'a>(&'a mut Vec<u8>);

impl fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Writes a number with `serde_json`'s formatter.
macro_rules! number {
    ($name:ident, $t:ty, $write:ident) => {
        fn $name(self, v: $t) -> Result<(), Error> {
            let _ = CompactFormatter.$write(&mut self.buf, v);
            Ok(())
        }
    };
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.buf
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }

    number!(serialize_i8, i8, write_i8);
    number!(serialize_i16, i16, write_i16);
    number!(serialize_i32, i32, write_i32);
    number!(serialize_i64, i64, write_i64);
    number!(serialize_u8, u8, write_u8);
    number!(serialize_u16, u16, write_u16);
    number!(serialize_u32, u32, write_u32);
    number!(serialize_u64, u64, write_u64);

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if v.is_finite() {
            let _ = CompactFormatter.write_f32(&mut self.buf, v);
        } else {
            self.buf.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if v.is_finite() {
            let _ = CompactFormatter.write_f64(&mut self.buf, v);
        } else {
            self.buf.extend_from_slice(b"null");
        }
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.buf.extend_from_slice(b"null");
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
        self.string(variant);
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
        self.buf.push(b'{');
        self.string(variant);
        self.buf.push(b':');
        value.serialize(&mut *self)?;
        self.buf.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        self.buf.push(b'[');
        Ok(Compound {
            w: self,
            first: true,
            close: b']',
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(ser::Error::custom(format!(
            "{name}::{variant}: tuple variants are not written"
        )))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        self.buf.push(b'{');
        Ok(Compound {
            w: self,
            first: true,
            close: b'}',
        })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_map(None)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(ser::Error::custom(format!(
            "{name}::{variant}: struct variants are not written"
        )))
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.display(value);
        Ok(())
    }
}

/// An array or an object being written.
pub(crate) struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    close: u8,
}

impl Compound<'_> {
    fn comma(&mut self) {
        if self.first {
            self.first = false;
        } else {
            self.w.buf.push(b',');
        }
    }

    fn finish(self) -> Result<(), Error> {
        self.w.buf.push(self.close);
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(&mut *self.w)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(KeyWriter(&mut *self.w))?;
        self.w.buf.push(b':');
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.w)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.comma();
        // A field name is one of the views' own identifiers (or a serde
        // rename of one): nothing in it needs escaping.
        self.w.buf.push(b'"');
        self.w.buf.extend_from_slice(key.as_bytes());
        self.w.buf.extend_from_slice(b"\":");
        value.serialize(&mut *self.w)
    }

    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// The scalar `serialize_*` methods of a map key that is not a string.
macro_rules! not_a_key {
    ($($name:ident($t:ty)),* $(,)?) => {
        $(
            fn $name(self, _: $t) -> Result<(), Error> {
                Err(key_must_be_a_string())
            }
        )*
    };
}

/// A map key: a string (or what writes as one).
struct KeyWriter<'a>(&'a mut Writer);

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.string(v);
        Ok(())
    }

    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.0.display(value);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.0.string(variant);
        Ok(())
    }

    not_a_key!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_bytes(&[u8]),
    );

    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.0.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
}

fn key_must_be_a_string() -> Error {
    Error("a map key must be a string".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_scan_finds_every_byte_that_needs_escaping_wherever_it_is() {
        for len in 0..20 {
            let clean = vec![b'a'; len];
            assert!(!any_escape(&clean), "{len}");
            for at in 0..len {
                for bad in [b'"', b'\\', b'\n', 0, 0x1f] {
                    let mut text = clean.clone();
                    text[at] = bad;
                    assert!(any_escape(&text), "{bad} at {at} of {len}");
                }
                for fine in [b' ', 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']'] {
                    let mut text = clean.clone();
                    text[at] = fine;
                    assert!(!any_escape(&text), "{fine} at {at} of {len}");
                }
            }
        }
    }

    #[test]
    fn it_writes_what_serde_json_writes() {
        let values = [
            json!({"a": 1, "b": [true, false, null], "c": {"d": "e\"f\\g\nh\u{1}"}}),
            json!([1.5, -2, 18446744073709551615u64, "ünïcödé", ""]),
            json!({}),
            json!([]),
        ];
        for v in values {
            assert_eq!(
                String::from_utf8(to_vec(&v).unwrap()).unwrap(),
                serde_json::to_string(&v).unwrap()
            );
        }
    }

    #[test]
    fn structs_options_and_displayed_strings_match_serde_json() {
        #[derive(serde::Serialize)]
        struct View<'a> {
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            gone: Option<u8>,
            here: Option<f32>,
            #[serde(rename = "type")]
            kind: &'static str,
            id: uuid::Uuid,
            at: chrono::DateTime<chrono::Utc>,
            shown: Shown,
        }
        struct Shown(&'static str);
        impl Serialize for Shown {
            fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(&format_args!("<{}>", self.0))
            }
        }
        let v = View {
            name: "web \"1\"",
            gone: None,
            here: Some(41.7),
            kind: "x",
            id: uuid::Uuid::from_u128(7),
            at: chrono::DateTime::from_timestamp(1_700_000_000, 5).unwrap(),
            shown: Shown("a\"b"),
        };
        assert_eq!(
            String::from_utf8(to_vec(&v).unwrap()).unwrap(),
            serde_json::to_string(&v).unwrap()
        );
    }
}
