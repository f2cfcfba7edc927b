//! Random kinds over the Rust type vocabulary whose wire format is not Go's: every integer
//! width, `NonZero*`, `char`, fixed arrays, bytes, `Option` behind a `Box`, `Option`s in
//! lists and maps, maps keyed by an enum, a `char` or a converted type, a flattened map of
//! any JSON, an enum written as its discriminant (serde_repr), an untagged enum of an
//! integer and a string (an int-or-string), a field serialised `with` a module (described by markers), a type converted
//! through a `String`, Kubernetes types. Each case is written twice from one
//! model: the source operator-gen reads (with the derives and markers) and the source the
//! case crate compiles (plain serde derives), so serde itself says what the type reads.
//!
//! With each case come probes: a valid spec, and for every value in it the boundaries of
//! its type (its minimum and maximum, one past each, zero for `NonZero`, a character too
//! many, an item too few, `null`, a value of the wrong JSON type, the field left out, a
//! field no struct names).

use serde_json::{Map, Value, json};
use std::fmt::Write as _;

use operator_gen_conformance::Rng;

/// Rust's integer types: name, minimum and maximum as JSON integers.
const INTEGERS: &[(&str, i128, i128)] = &[
    ("i8", i8::MIN as i128, i8::MAX as i128),
    ("i16", i16::MIN as i128, i16::MAX as i128),
    ("i32", i32::MIN as i128, i32::MAX as i128),
    ("i64", i64::MIN as i128, i64::MAX as i128),
    ("isize", i64::MIN as i128, i64::MAX as i128),
    ("u8", 0, u8::MAX as i128),
    ("u16", 0, u16::MAX as i128),
    ("u32", 0, u32::MAX as i128),
    ("u64", 0, u64::MAX as i128),
    ("usize", 0, u64::MAX as i128),
];

#[derive(Debug, Clone)]
pub enum Ty {
    Int(usize),
    NonZero(usize),
    Char,
    Bool,
    Str,
    Array(Box<Ty>, usize),
    Vec(Box<Ty>),
    Bytes,
    /// `Option<T>` as a field.
    Opt(Box<Ty>),
    /// `Box<Option<T>>` as a field.
    BoxOpt(Box<Ty>),
    /// `Vec<Option<T>>`.
    VecOpt(Box<Ty>),
    /// `BTreeMap<String, Option<T>>`.
    MapOpt(Box<Ty>),
    /// `BTreeMap<String, T>`.
    Map(Box<Ty>),
    /// A map whose keys are not any string: `BTreeMap<K, T>`.
    KeyedMap(Key, Box<Ty>),
    /// A struct of the case, by index.
    Struct(usize),
    /// `u32` written `with` a module as a decimal string; markers say so.
    AsString,
    /// A newtype converted through `String` (`into` and `try_from`).
    Converted,
    /// `k8s_openapi::ByteString`: base64.
    ByteString,
    /// metav1 `Time`, `MicroTime`, `IntOrString`, `Quantity`, and kube's `Duration`.
    Time,
    MicroTime,
    IntOrString,
    Quantity,
    Duration,
    /// `std::time::Duration`: `{"secs": .., "nanos": ..}`.
    StdDuration,
    /// `Level`, written as its discriminant (serde_repr, `#[repr(i16)]`).
    Repr,
    /// `Target`, an untagged enum of a `NonZeroU16` and a `Color`: an int-or-string.
    Untagged,
}

/// Map keys that do not read every string.
#[derive(Debug, Clone, Copy)]
pub enum Key {
    /// `Color`, a unit enum (one variant renamed).
    Color,
    /// `char`.
    Char,
    /// `Listen`, converted through a `String` that must be a port.
    Listen,
}

impl Key {
    fn rust(self) -> &'static str {
        match self {
            Key::Color => "Color",
            Key::Char => "char",
            Key::Listen => "Listen",
        }
    }

    fn valid(self) -> &'static str {
        match self {
            Key::Color => "dark-blue",
            Key::Char => "c",
            Key::Listen => "8080",
        }
    }

    /// Keys to probe: some read, some do not.
    fn probes(self) -> &'static [&'static str] {
        match self {
            Key::Color => &["Red", "Green", "DarkBlue", "red", ""],
            Key::Char => &["a", "é", "😀", "ab", ""],
            Key::Listen => &["0", "65535", "65536", "x", ""],
        }
    }
}

pub struct StructDef {
    pub name: String,
    /// (Rust name, JSON name, type)
    pub fields: Vec<(String, String, Ty)>,
    /// Whether it has `#[serde(flatten)] extra: BTreeMap<String, serde_json::Value>`,
    /// which takes the fields it does not name.
    pub extra: bool,
}

pub struct Case {
    pub seed: u64,
    pub kind: String,
    pub group: String,
    pub structs: Vec<StructDef>,
    /// A shape written by hand (`shapes.rs`) instead of drawn structs.
    pub fixed: Option<Fixed>,
}

/// A case's types as written (`DERIVE` for the derives) and its probes.
pub struct Fixed {
    pub types: &'static str,
    pub probes: Vec<Value>,
}

impl Case {
    pub fn draw(seed: u64) -> Case {
        let mut rng = Rng::new(seed);
        let mut case = Case {
            seed,
            kind: format!("Wire{seed}"),
            group: format!("s{seed}.wire.example.com"),
            structs: Vec::new(),
            fixed: None,
        };
        case.draw_struct(&mut rng, 0);
        case
    }

    fn draw_struct(&mut self, rng: &mut Rng, depth: u32) -> usize {
        let id = self.structs.len();
        self.structs.push(StructDef {
            name: if id == 0 {
                format!("{}Spec", self.kind)
            } else {
                format!("{}Part{id}", self.kind)
            },
            fields: Vec::new(),
            extra: false,
        });
        self.structs[id].extra = rng.below(5) == 0;
        let count = 2 + rng.below(5) as usize;
        let mut fields = Vec::new();
        for i in 0..count {
            let ty = self.draw_type(rng, depth, true);
            fields.push((
                format!("f{i}_{}", tag(&ty)),
                format!("f{i}{}", tag(&ty)),
                ty,
            ));
        }
        self.structs[id].fields = fields;
        id
    }

    fn draw_type(&mut self, rng: &mut Rng, depth: u32, field: bool) -> Ty {
        let leaf = |rng: &mut Rng| match rng.below(8) {
            0..=3 => Ty::Int(rng.below(INTEGERS.len() as u64) as usize),
            4 => Ty::NonZero(rng.below(INTEGERS.len() as u64) as usize),
            5 => Ty::Char,
            6 => Ty::Str,
            _ => Ty::Bool,
        };
        let nested = depth < 2;
        match rng.below(20) {
            0..=8 => leaf(rng),
            9 if nested => Ty::Array(Box::new(leaf(rng)), 1 + rng.below(4) as usize),
            10 if nested => Ty::Vec(Box::new(self.draw_type(rng, depth + 1, false))),
            11 => Ty::Bytes,
            12 if field => Ty::Opt(Box::new(self.draw_type(rng, depth + 1, false))),
            13 if field => Ty::BoxOpt(Box::new(leaf(rng))),
            14 if nested => Ty::VecOpt(Box::new(leaf(rng))),
            15 if nested => Ty::MapOpt(Box::new(leaf(rng))),
            // As a field only (it carries the bound the rule on its keys needs), so never
            // inside a list.
            16 if nested && field && rng.below(3) == 0 => {
                let key = [Key::Color, Key::Char, Key::Listen][rng.below(3) as usize];
                Ty::KeyedMap(key, Box::new(leaf(rng)))
            }
            16 if nested => Ty::Map(Box::new(leaf(rng))),
            17 if nested => Ty::Struct(self.draw_struct(rng, depth + 1)),
            18 if field => Ty::AsString,
            19 => match rng.below(10) {
                9 => Ty::Untagged,
                8 => Ty::Repr,
                7 => Ty::StdDuration,
                0 => Ty::Converted,
                1 => Ty::ByteString,
                2 => Ty::Time,
                3 => Ty::MicroTime,
                4 => Ty::IntOrString,
                5 => Ty::Quantity,
                _ => Ty::Duration,
            },
            _ => leaf(rng),
        }
    }

    fn rust_type(&self, ty: &Ty) -> String {
        match ty {
            Ty::Int(i) => INTEGERS[*i].0.into(),
            Ty::NonZero(i) => format!("std::num::NonZero<{}>", INTEGERS[*i].0),
            Ty::Char => "char".into(),
            Ty::Bool => "bool".into(),
            Ty::Str => "String".into(),
            Ty::Array(t, n) => format!("[{}; {n}]", self.rust_type(t)),
            Ty::Vec(t) => format!("Vec<{}>", self.rust_type(t)),
            Ty::Bytes => "Vec<u8>".into(),
            Ty::Opt(t) => format!("Option<{}>", self.rust_type(t)),
            Ty::BoxOpt(t) => format!("Box<Option<{}>>", self.rust_type(t)),
            Ty::VecOpt(t) => format!("Vec<Option<{}>>", self.rust_type(t)),
            Ty::MapOpt(t) => format!("BTreeMap<String, Option<{}>>", self.rust_type(t)),
            Ty::Map(t) => format!("BTreeMap<String, {}>", self.rust_type(t)),
            Ty::KeyedMap(k, t) => format!("BTreeMap<{}, {}>", k.rust(), self.rust_type(t)),
            Ty::Struct(id) => self.structs[*id].name.clone(),
            Ty::AsString => "u32".into(),
            Ty::Converted => "Listen".into(),
            Ty::ByteString => "ByteString".into(),
            Ty::Time => "Time".into(),
            Ty::MicroTime => "MicroTime".into(),
            Ty::IntOrString => "IntOrString".into(),
            Ty::Quantity => "Quantity".into(),
            Ty::Duration => "Duration".into(),
            Ty::StdDuration => "std::time::Duration".into(),
            Ty::Repr => "Level".into(),
            Ty::Untagged => "Target".into(),
        }
    }

    /// The module of this case: for operator-gen (`markers`) or for rustc.
    pub fn source(&self, markers: bool) -> String {
        let mut s = String::new();
        let derive = if markers {
            "#[derive(Schema, Serialize, Deserialize)]"
        } else {
            "#[derive(Serialize, Deserialize)]"
        };
        if markers {
            let _ = writeln!(
                s,
                "#[derive(CustomResource)]\n#[resource(group = \"{}\", version = \"v1\", kind = \"{}\")]\npub struct {} {{ pub metadata: ObjectMeta, pub spec: {}Spec }}\n",
                self.group, self.kind, self.kind, self.kind
            );
        }
        if let Some(fixed) = &self.fixed {
            let bound = if markers {
                "#[validation(max_properties = 8)]"
            } else {
                ""
            };
            let types = fixed.types.replace("DERIVE", derive).replace("MAX8", bound);
            // `MARKED ...` lines are for operator-gen only (markers on a type that derives
            // nothing else, such as one serialized by hand).
            for line in types.lines() {
                match line.strip_prefix("MARKED ") {
                    Some(marked) if markers => s.push_str(marked),
                    Some(_) => continue,
                    None => s.push_str(line),
                }
                s.push('\n');
            }
            return s;
        }
        for def in &self.structs {
            let _ = writeln!(s, "{derive}\npub struct {} {{", def.name);
            for (rust, json, ty) in &def.fields {
                let _ = writeln!(s, "    #[serde(rename = \"{json}\")]");
                if matches!(ty, Ty::AsString) {
                    let _ = writeln!(s, "    #[serde(with = \"crate::as_string\")]");
                    if markers {
                        let _ = writeln!(
                            s,
                            "    #[validation(type = \"string\", pattern = \"^(0|[1-9][0-9]{{0,8}}|[1-3][0-9]{{9}}|4[01][0-9]{{8}}|42[0-8][0-9]{{7}}|429[0-3][0-9]{{6}}|4294[0-8][0-9]{{5}}|42949[0-5][0-9]{{4}}|429496[0-6][0-9]{{3}}|4294967[01][0-9]{{2}}|42949672[0-8][0-9]|429496729[0-5])$\")]"
                        );
                    }
                }
                if markers && matches!(ty, Ty::KeyedMap(..)) {
                    let _ = writeln!(s, "    #[validation(max_properties = 8)]");
                }
                let _ = writeln!(s, "    pub {rust}: {},", self.rust_type(ty));
            }
            if def.extra {
                let _ = writeln!(
                    s,
                    "    #[serde(flatten)]\n    pub extra: BTreeMap<String, serde_json::Value>,"
                );
            }
            let _ = writeln!(s, "}}\n");
        }
        s
    }

    /// A valid value of `ty`.
    pub fn valid(&self, ty: &Ty) -> Value {
        match ty {
            Ty::Int(i) | Ty::NonZero(i) => json!(INTEGERS[*i].2.min(7) as i64),
            Ty::Char => json!("c"),
            Ty::Bool => json!(true),
            Ty::Str => json!("text"),
            Ty::Array(t, n) => Value::Array(vec![self.valid(t); *n]),
            Ty::Vec(t) | Ty::VecOpt(t) => json!([self.valid(t)]),
            Ty::Bytes => json!([0, 255]),
            Ty::Opt(t) | Ty::BoxOpt(t) => self.valid(t),
            Ty::Map(t) | Ty::MapOpt(t) => json!({ "k": self.valid(t) }),
            Ty::KeyedMap(k, t) => json!({ k.valid(): self.valid(t) }),
            Ty::Struct(id) => self.valid_struct(*id),
            Ty::AsString => json!("42"),
            Ty::Converted => json!("8080"),
            Ty::ByteString => json!("AAEC"),
            Ty::Time => json!("2024-01-02T03:04:05Z"),
            Ty::MicroTime => json!("2024-01-02T03:04:05.123456Z"),
            Ty::IntOrString => json!(3),
            Ty::Quantity => json!("1Gi"),
            Ty::Duration => json!("1h"),
            Ty::StdDuration => json!({"secs": 30, "nanos": 5}),
            Ty::Repr => json!(-3),
            Ty::Untagged => json!(443),
        }
    }

    pub fn valid_struct(&self, id: usize) -> Value {
        let mut obj = Map::new();
        for (_, json, ty) in &self.structs[id].fields {
            obj.insert(json.clone(), self.valid(ty));
        }
        Value::Object(obj)
    }

    /// Probes: edits of the valid spec, each a path (JSON keys and indexes) and the value to
    /// put there (`None`: leave the key out).
    pub fn probes(&self) -> Vec<Value> {
        if let Some(fixed) = &self.fixed {
            return fixed.probes.clone();
        }
        let base = self.valid_struct(0);
        let mut edits = Vec::new();
        self.struct_edits(0, &mut Vec::new(), &mut edits);
        let mut out = vec![base.clone()];
        for (path, value) in edits {
            let mut spec = base.clone();
            if set(&mut spec, &path, value) {
                out.push(spec);
            }
        }
        out
    }

    fn struct_edits(
        &self,
        id: usize,
        path: &mut Vec<Step>,
        out: &mut Vec<(Vec<Step>, Option<Value>)>,
    ) {
        for (_, json, ty) in &self.structs[id].fields {
            path.push(Step::Key(json.clone()));
            out.push((path.clone(), None));
            self.edits(ty, path, out);
            path.pop();
        }
        // A field the struct does not name: pruned by the API server, or kept for a
        // flattened map of any JSON.
        path.push(Step::Key("zz".into()));
        out.push((path.clone(), Some(json!(1))));
        out.push((path.clone(), Some(json!({"a": [null, "b"]}))));
        path.pop();
    }

    fn edits(&self, ty: &Ty, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Option<Value>)>) {
        let mut put = |v: Value| out.push((path.clone(), Some(v)));
        put(Value::Null);
        match ty {
            Ty::Int(i) | Ty::NonZero(i) => {
                let (_, min, max) = INTEGERS[*i];
                for n in [min - 1, min, 0, 1, -1, max, max + 1] {
                    put(int(n));
                }
                put(json!("1"));
                put(json!(1.5));
            }
            Ty::Char => {
                for v in ["", "a", "ab", "é", "😀", "😀😀"] {
                    put(json!(v));
                }
                put(json!(1));
            }
            Ty::Bool => put(json!("true")),
            Ty::Str => {
                put(json!(""));
                put(json!(1));
            }
            Ty::Array(t, n) => {
                put(Value::Array(vec![self.valid(t); n - 1]));
                put(Value::Array(vec![self.valid(t); n + 1]));
                put(json!({}));
                path.push(Step::Index(0));
                self.edits(t, path, out);
                path.pop();
            }
            Ty::Vec(t) | Ty::VecOpt(t) => {
                put(json!([]));
                put(json!("x"));
                path.push(Step::Index(0));
                self.edits(t, path, out);
                path.pop();
            }
            Ty::Bytes => {
                for v in [
                    json!([]),
                    json!([256]),
                    json!([-1]),
                    json!("AAE="),
                    json!([255, 0]),
                ] {
                    put(v);
                }
            }
            Ty::Opt(t) | Ty::BoxOpt(t) => self.edits(t, path, out),
            Ty::Map(t) | Ty::MapOpt(t) => {
                put(json!({}));
                put(json!([]));
                path.push(Step::Key("k".into()));
                self.edits(t, path, out);
                path.pop();
            }
            Ty::KeyedMap(k, t) => {
                put(json!({}));
                for key in k.probes() {
                    put(json!({ *key: self.valid(t) }));
                }
                path.push(Step::Key(k.valid().into()));
                self.edits(t, path, out);
                path.pop();
            }
            Ty::Struct(id) => {
                put(json!({}));
                put(json!("x"));
                self.struct_edits(*id, path, out);
            }
            Ty::AsString => {
                for v in [
                    json!("0"),
                    json!("4294967295"),
                    json!("4294967296"),
                    json!("-1"),
                    json!("x"),
                    json!(42),
                ] {
                    put(v);
                }
            }
            Ty::Converted => {
                for v in [
                    json!("0"),
                    json!("65535"),
                    json!("65536"),
                    json!(""),
                    json!(8080),
                ] {
                    put(v);
                }
            }
            Ty::ByteString => {
                for v in [
                    json!(""),
                    json!("AA=="),
                    json!("not base64!"),
                    json!([1, 2]),
                ] {
                    put(v);
                }
            }
            Ty::Time | Ty::MicroTime => {
                for v in [
                    "2024-01-02T03:04:05Z",
                    "2024-01-02T03:04:05.123456Z",
                    "2024-01-02T03:04:05+01:00",
                    "2024-01-02T03:04:05",
                    "2024-01-02T03:04Z",
                    "2024-01-02",
                    "x",
                    "",
                ] {
                    put(json!(v));
                }
                put(json!(1));
            }
            Ty::IntOrString => {
                for v in [
                    json!("x"),
                    json!("50%"),
                    json!(-1),
                    json!(2147483647),
                    json!(2147483648_i64),
                    json!(-2147483649_i64),
                    json!(1.5),
                    json!(true),
                ] {
                    put(v);
                }
            }
            Ty::Quantity => {
                for v in [
                    json!("1.5"),
                    json!("abc"),
                    json!("-1"),
                    json!("1e3"),
                    json!("+1Ki"),
                    json!(""),
                    json!(5),
                    json!(1.5),
                ] {
                    put(v);
                }
            }
            Ty::Duration => {
                for v in [
                    json!("1h30m"),
                    json!("300ms"),
                    json!("-5s"),
                    json!("1.5h"),
                    json!("abc"),
                    json!(""),
                    json!("1d"),
                    json!(5),
                ] {
                    put(v);
                }
            }
            Ty::Repr => {
                for v in [
                    json!(-3),
                    json!(0),
                    json!(1),
                    json!(300),
                    json!(2),
                    json!(-4),
                    json!(32768),
                    json!("1"),
                    json!("Low"),
                    json!(1.5),
                ] {
                    put(v);
                }
            }
            Ty::Untagged => {
                for v in [
                    json!(0),
                    json!(1),
                    json!(65535),
                    json!(65536),
                    json!(-1),
                    json!("Red"),
                    json!("dark-blue"),
                    json!("DarkBlue"),
                    json!("dark.blue"),
                    json!(""),
                    json!("443"),
                    json!(1.5),
                    json!(true),
                ] {
                    put(v);
                }
            }
            Ty::StdDuration => {
                for v in [
                    json!({"secs": 0, "nanos": 999_999_999}),
                    json!({"secs": 1, "nanos": 1_000_000_000}),
                    json!({"secs": -1, "nanos": 0}),
                    json!({"secs": 9_223_372_036_854_775_807_i64, "nanos": 0}),
                    json!({"secs": u64::MAX, "nanos": 0}),
                    json!({"secs": 1}),
                    json!({"secs": 1, "nanos": 4_294_967_296_i64}),
                    json!("30s"),
                ] {
                    put(v);
                }
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Puts `value` at `path` in `root` (or removes the key for `None`); false when the path
/// does not exist in the valid spec.
fn set(root: &mut Value, path: &[Step], value: Option<Value>) -> bool {
    let (last, parents) = path.split_last().expect("a path has a step");
    let mut at = root;
    for step in parents {
        at = match (step, at) {
            (Step::Key(k), Value::Object(m)) => match m.get_mut(k) {
                Some(v) => v,
                None => return false,
            },
            (Step::Index(i), Value::Array(a)) => match a.get_mut(*i) {
                Some(v) => v,
                None => return false,
            },
            _ => return false,
        };
    }
    match (last, at, value) {
        (Step::Key(k), Value::Object(m), Some(v)) => {
            m.insert(k.clone(), v);
        }
        (Step::Key(k), Value::Object(m), None) => {
            m.remove(k);
        }
        (Step::Index(i), Value::Array(a), Some(v)) if *i < a.len() => a[*i] = v,
        _ => return false,
    }
    true
}

/// A JSON integer, also one beyond i64 and u64 (as a literal the API server must judge).
fn int(n: i128) -> Value {
    if let Ok(v) = i64::try_from(n) {
        json!(v)
    } else if let Ok(v) = u64::try_from(n) {
        json!(v)
    } else {
        // Beyond both: serde_json's arbitrary precision is off, so write the nearest float.
        json!(n as f64)
    }
}

/// A short tag of a type for field names, so a failure names what was probed.
fn tag(ty: &Ty) -> String {
    match ty {
        Ty::Int(i) => INTEGERS[*i].0.into(),
        Ty::NonZero(i) => format!("nz{}", INTEGERS[*i].0),
        Ty::Char => "char".into(),
        Ty::Bool => "bool".into(),
        Ty::Str => "str".into(),
        Ty::Array(t, n) => format!("arr{n}{}", tag(t)),
        Ty::Vec(t) => format!("vec{}", tag(t)),
        Ty::Bytes => "bytes".into(),
        Ty::Opt(t) => format!("opt{}", tag(t)),
        Ty::BoxOpt(t) => format!("boxopt{}", tag(t)),
        Ty::VecOpt(t) => format!("vecopt{}", tag(t)),
        Ty::MapOpt(t) => format!("mapopt{}", tag(t)),
        Ty::Map(t) => format!("map{}", tag(t)),
        Ty::KeyedMap(k, t) => format!("map{}{}", k.rust().to_ascii_lowercase(), tag(t)),
        Ty::Struct(id) => format!("part{id}"),
        Ty::AsString => "asstring".into(),
        Ty::Converted => "listen".into(),
        Ty::ByteString => "bytestring".into(),
        Ty::Time => "time".into(),
        Ty::MicroTime => "microtime".into(),
        Ty::IntOrString => "intorstring".into(),
        Ty::Quantity => "quantity".into(),
        Ty::Duration => "duration".into(),
        Ty::StdDuration => "stdduration".into(),
        Ty::Repr => "repr".into(),
        Ty::Untagged => "untagged".into(),
    }
}

/// What every case module shares: imports, the `with` module and the converted type.
pub fn prelude(markers: bool) -> String {
    let mut s = String::from(
        "#![allow(dead_code, non_snake_case, clippy::all)]\nuse serde::{Deserialize, Serialize};\nuse std::collections::BTreeMap;\nuse k8s_openapi::ByteString;\nuse k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};\nuse k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;\nuse k8s_openapi::apimachinery::pkg::api::resource::Quantity;\nuse kube::core::Duration;\n",
    );
    if markers {
        s.push_str("use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\n");
    }
    let listen_markers = if markers {
        "#[validation(pattern = \"^(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$\")]"
    } else {
        ""
    };
    s.push_str(
        &r#"
/// A port written and read as a decimal string; the conversion refuses what is no port, so
/// the markers say what a port looks like.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(into = "String", try_from = "String")]
MARKERS
pub struct Listen { pub port: u16 }
impl From<Listen> for String { fn from(l: Listen) -> String { l.port.to_string() } }
impl TryFrom<String> for Listen {
    type Error = std::num::ParseIntError;
    fn try_from(s: String) -> Result<Self, Self::Error> { Ok(Listen { port: s.parse()? }) }
}

/// Map keys from a unit enum.
DERIVE
pub enum Color { Red, Green, #[serde(rename = "dark-blue")] DarkBlue }

/// A number or a color: untagged, so an int-or-string.
UNTAGGED
#[serde(untagged)]
pub enum Target { Number(std::num::NonZeroU16), Name(Color) }

/// Written as its discriminant: -3, 0, 1, 300.
REPR
#[repr(i16)]
pub enum Level { Low = -3, Zero = 0, One, High = 300 }

/// u32 as a decimal string.
pub mod as_string {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(n: &u32, s: S) -> Result<S::Ok, S::Error> { s.serialize_str(&n.to_string()) }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let text = String::deserialize(d)?;
        if text.len() > 1 && text.starts_with('0') { return Err(serde::de::Error::custom("leading zero")); }
        text.parse().map_err(serde::de::Error::custom)
    }
}
"#
        .replace("MARKERS", listen_markers)
        .replace(
            "UNTAGGED",
            if markers {
                "#[derive(Schema, Serialize, Deserialize, Clone)]"
            } else {
                "#[derive(Serialize, Deserialize, Clone)]"
            },
        )
        .replace(
            "REPR",
            if markers {
                "#[derive(Schema, serde_repr::Serialize_repr, serde_repr::Deserialize_repr, Clone)]"
            } else {
                "#[derive(serde_repr::Serialize_repr, serde_repr::Deserialize_repr, Clone)]"
            },
        )
        .replace(
            "DERIVE",
            if markers {
                "#[derive(Schema, Serialize, Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]"
            } else {
                "#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]"
            },
        ),
    );
    s
}
