//! The document tree the YAML writer lays out, built straight from any `Serialize` value.
//!
//! It holds what `serde_json::to_value` would produce (maps and structs never repeat a
//! key), with two differences that matter for a large API: struct field names are borrowed (`&'static str`) instead of copied, and
//! mappings are vectors in serialisation order instead of B-trees (the writer sorts them in
//! go-yaml's order anyway). Floats with an integral value become integers, as
//! controller-gen writes `minimum: 0`, never `minimum: 0.0`.

use std::borrow::Cow;

use serde::ser::{self, Serialize};
use serde_json::{Number, Value};

/// A YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null`
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string, quoted when YAML needs it.
    String(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, keys in the order written.
    Map(Vec<(Cow<'static, str>, Node)>),
}

impl From<&Value> for Node {
    fn from(v: &Value) -> Self {
        match v {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(integral(n.clone())),
            Value::String(s) => Node::String(s.clone()),
            Value::Array(items) => Node::Seq(items.iter().map(Node::from).collect()),
            Value::Object(map) => Node::Map(
                map.iter()
                    .map(|(k, v)| (Cow::Owned(k.clone()), Node::from(v)))
                    .collect(),
            ),
        }
    }
}

/// `value` as a node tree.
pub fn to_node<T: Serialize + ?Sized>(value: &T) -> Node {
    value
        .serialize(NodeSerializer)
        .expect("values without non-string map keys always serialise")
}

/// Integral floats as integers (JSON numbers do not tell `0` from `0.0`; go-yaml writes `0`).
pub fn integral(n: Number) -> Number {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => (f as i64).into(),
        _ => n,
    }
}

fn float(f: f64) -> Node {
    Number::from_f64(f).map_or(Node::Null, |n| Node::Number(integral(n)))
}

/// Why a value has no node: a map key that is not a string or number.
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

struct NodeSerializer;

type Result<T> = std::result::Result<T, Error>;

impl ser::Serializer for NodeSerializer {
    type Ok = Node;
    type Error = Error;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = VariantBuilder<SeqBuilder>;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = VariantBuilder<MapBuilder>;

    fn serialize_bool(self, v: bool) -> Result<Node> {
        Ok(Node::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Node> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Node> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Node> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Node> {
        Ok(Node::Number(v.into()))
    }
    fn serialize_u8(self, v: u8) -> Result<Node> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Node> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Node> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Node> {
        Ok(Node::Number(v.into()))
    }
    fn serialize_f32(self, v: f32) -> Result<Node> {
        Ok(float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Node> {
        Ok(float(v))
    }
    fn serialize_char(self, v: char) -> Result<Node> {
        Ok(Node::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Node> {
        Ok(Node::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Node> {
        Ok(Node::Seq(
            v.iter().map(|b| Node::Number((*b).into())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Node> {
        Ok(Node::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Node> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Node> {
        Ok(Node::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Node> {
        Ok(Node::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Node> {
        Ok(Node::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Node> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Node> {
        Ok(Node::Map(vec![(
            Cow::Borrowed(variant),
            value.serialize(NodeSerializer)?,
        )]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder> {
        Ok(SeqBuilder(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<SeqBuilder>> {
        Ok(VariantBuilder(variant, self.serialize_seq(Some(len))?))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder> {
        Ok(MapBuilder {
            entries: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapBuilder> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<MapBuilder>> {
        Ok(VariantBuilder(variant, self.serialize_map(Some(len))?))
    }
}

struct SeqBuilder(Vec<Node>);

impl SeqBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.0.push(value.serialize(NodeSerializer)?);
        Ok(())
    }
}

/// Sequences, tuples and tuple structs are all lists of their elements.
macro_rules! seq_impl {
    ($trait:ident, $method:ident) => {
        impl ser::$trait for SeqBuilder {
            type Ok = Node;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }
            fn end(self) -> Result<Node> {
                Ok(Node::Seq(self.0))
            }
        }
    };
}

seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);

struct MapBuilder {
    entries: Vec<(Cow<'static, str>, Node)>,
    key: Option<String>,
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Node;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(match key.serialize(NodeSerializer)? {
            Node::String(s) => s,
            Node::Number(n) => n.to_string(),
            Node::Bool(b) => b.to_string(),
            other => return Err(Error(format!("map key must be a string, not {other:?}"))),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("map value without a key".into()))?;
        self.entries
            .push((Cow::Owned(key), value.serialize(NodeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Node> {
        Ok(Node::Map(self.entries))
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.entries
            .push((Cow::Borrowed(key), value.serialize(NodeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Node> {
        Ok(Node::Map(self.entries))
    }
}

/// A tuple or struct variant: `{variant: [...]}` or `{variant: {...}}`.
struct VariantBuilder<B>(&'static str, B);

impl ser::SerializeTupleVariant for VariantBuilder<SeqBuilder> {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.1.push(value)
    }
    fn end(self) -> Result<Node> {
        Ok(Node::Map(vec![(
            Cow::Borrowed(self.0),
            Node::Seq(self.1.0),
        )]))
    }
}

impl ser::SerializeStructVariant for VariantBuilder<MapBuilder> {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, value)
    }
    fn end(self) -> Result<Node> {
        Ok(Node::Map(vec![(
            Cow::Borrowed(self.0),
            Node::Map(self.1.entries),
        )]))
    }
}
