//! Random APIs: kinds composed from the marker vocabulary, names, defaults, list types and
//! serde attributes, written out as Rust sources, together with an instance of each kind
//! that the markers admit (what the operator would write with serde).
//!
//! Values come first: each field's sample value is drawn, then markers are drawn around it
//! (bounds that hold it, an enum that lists it, a pattern it matches, a default that is
//! valid), so every instance of an accepted API must be accepted by the API server. A small
//! share of the draws is deliberately wrong (a name the API server refuses, a default
//! outside its bounds, a list-map key that is no field, two fields with one JSON name): the
//! generator must refuse those with a location, never write them.

use serde_json::{Map, Value, json};
use std::fmt::Write as _;

pub use operator_gen_conformance::Rng;

/// One generated API: its source files, the options to run with, and an instance of each
/// kind (`apiVersion`, `kind`, `spec`) that its markers admit.
pub struct Case {
    pub seed: u64,
    pub files: Vec<(String, String)>,
    pub allow_dangerous_types: bool,
    pub instances: Vec<Instance>,
    /// Mistakes drawn on purpose (for the counts; the test does not rely on them).
    pub mistakes: Vec<String>,
}

pub struct Instance {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub body: Value,
}

impl Case {
    /// The sources as one text, for failure reports.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for (path, text) in &self.files {
            let _ = writeln!(out, "// ---- {path}\n{text}");
        }
        out
    }
}

#[derive(Clone, Debug)]
enum Ty {
    Bool,
    I32,
    I64,
    F64,
    Str,
    IntOrString,
    Quantity,
    Vec(Box<Ty>),
    Map(Box<Ty>),
    Opt(Box<Ty>),
    Struct(usize),
    Enum(usize),
    /// `serde_json::Value`: anything, kept as it is.
    Json,
}

/// A value the API server's CEL cannot see: no type, or a list or map of such values.
fn invisible_to_cel(ty: &Ty) -> bool {
    match ty {
        Ty::Json => true,
        Ty::Vec(t) | Ty::Map(t) | Ty::Opt(t) => invisible_to_cel(t),
        _ => false,
    }
}

impl Ty {
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Bool | Ty::I32 | Ty::I64 | Ty::F64 | Ty::Str | Ty::Enum(_)
        )
    }
}

struct StructDef {
    name: String,
    rename_all: Option<&'static str>,
    /// Rust field text, in order.
    fields: Vec<String>,
    /// The instance: JSON name -> sample.
    sample: Map<String, Value>,
    /// JSON names of fields that are present in the schema and required.
    required_scalars: Vec<String>,
    /// JSON names of scalar fields a field selector may use (string, integer, boolean).
    selectable: Vec<String>,
    /// JSON names of `i32` fields (a scale subresource's replicas).
    int32: Vec<String>,
    /// `validation(...)` arguments on the type.
    type_markers: Vec<String>,
    /// The JSON names of its fields in the schema (flattened ones included).
    json_names: Vec<String>,
}

struct EnumDef {
    name: String,
    text: String,
    json: Vec<String>,
}

const RENAME_ALL: &[&str] = &[
    "camelCase",
    "snake_case",
    "kebab-case",
    "PascalCase",
    "SCREAMING_SNAKE_CASE",
    "lowercase",
];

/// (pattern, a value it matches).
const PATTERNS: &[(&str, &str)] = &[
    ("^[a-z]+$", "abc"),
    ("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "web-01"),
    ("^v[0-9]+(\\.[0-9]+)*$", "v1.2"),
    ("^\\S+@\\S+$", "me@example.com"),
    (".*", "anything at all"),
];

/// (format, a value of it).
const FORMATS: &[(&str, &str)] = &[
    ("date-time", "2024-05-06T07:08:09Z"),
    ("uuid", "0f8fad5b-d9cb-469f-a165-70867728950e"),
    ("hostname", "example.com"),
    ("ipv4", "10.0.0.1"),
    ("byte", "aGVsbG8="),
];

const WORDS: &[&str] = &[
    "alpha", "bravo", "cache", "delta", "engine", "fleet", "gauge", "harbor", "index", "job",
    "kernel", "ledger", "mirror", "node", "orbit", "pool", "queue", "relay", "shard", "tunnel",
];

pub struct Generator {
    rng: Rng,
    structs: Vec<StructDef>,
    enums: Vec<EnumDef>,
    names: usize,
    dangerous: bool,
    mistakes: Vec<String>,
    /// How often a deliberate mistake is drawn.
    wrong: f64,
    /// Inside the items of a list: old and new values cannot be paired there, so a rule
    /// on `oldSelf` (immutable) is a mistake.
    in_list: u32,
    /// Inside the values of a map (rules there are left out, see `draw_type`).
    in_map: u32,
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// serde's rename_all for a snake_case field name.
fn rename(rule: Option<&str>, field: &str) -> String {
    let words: Vec<&str> = field.split('_').collect();
    match rule {
        None | Some("snake_case") => field.to_string(),
        Some("camelCase") => {
            let mut out = words[0].to_string();
            for w in &words[1..] {
                out.push_str(&upper_first(w));
            }
            out
        }
        Some("PascalCase") => words.iter().map(|w| upper_first(w)).collect(),
        Some("kebab-case") => words.join("-"),
        Some("SCREAMING_SNAKE_CASE") => field.to_uppercase(),
        Some("lowercase") => field.to_lowercase(),
        Some(other) => panic!("no rule {other}"),
    }
}

/// serde's rename_all for a PascalCase variant name.
fn rename_variant(rule: Option<&str>, variant: &str) -> String {
    match rule {
        None | Some("PascalCase") => variant.to_string(),
        Some("lowercase") => variant.to_lowercase(),
        Some("camelCase") => {
            let mut c = variant.chars();
            c.next()
                .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        }
        Some("SCREAMING_SNAKE_CASE") => variant.to_uppercase(),
        Some(_) => variant.to_lowercase(),
    }
}

impl Generator {
    pub fn new(seed: u64, wrong: f64) -> Self {
        Generator {
            rng: Rng::new(seed),
            structs: Vec::new(),
            enums: Vec::new(),
            names: 0,
            dangerous: false,
            mistakes: Vec::new(),
            wrong,
            in_list: 0,
            in_map: 0,
        }
    }

    fn wrong(&mut self, what: &str) -> bool {
        if self.rng.chance(self.wrong) {
            self.mistakes.push(what.to_string());
            true
        } else {
            false
        }
    }

    fn fresh_type_name(&mut self, stem: &str) -> String {
        self.names += 1;
        format!("{stem}{}", self.names)
    }

    fn field_name(&mut self, taken: &[String]) -> String {
        loop {
            let a = self.rng.pick(WORDS);
            let name = if self.rng.chance(0.4) {
                format!("{a}_{}", self.rng.pick(WORDS))
            } else {
                a.to_string()
            };
            if !taken.contains(&name) {
                return name;
            }
        }
    }

    fn draw_type(&mut self, depth: u32) -> Ty {
        let leaf = depth >= 3;
        match self.rng.below(if leaf { 8 } else { 14 }) {
            0 | 1 => Ty::I32,
            2 => Ty::I64,
            3 | 4 => Ty::Str,
            5 => Ty::Bool,
            6 => {
                if self.rng.chance(0.5) {
                    Ty::F64
                } else {
                    Ty::IntOrString
                }
            }
            7 => match self.rng.below(3) {
                0 => Ty::Quantity,
                1 => Ty::Json,
                _ => self.draw_enum(),
            },
            8 | 9 => {
                self.in_list += 1;
                let items = self.draw_type(depth + 1);
                self.in_list -= 1;
                Ty::Vec(Box::new(items))
            }
            10 => {
                // Map values are correlated, but the API server's cost estimate of a rule
                // in an unbounded map is its own to judge (see the README): no immutable.
                self.in_map += 1;
                let values = self.draw_type(depth + 1);
                self.in_map -= 1;
                Ty::Map(Box::new(values))
            }
            _ => {
                let id = self.draw_struct(depth + 1, false);
                Ty::Struct(id)
            }
        }
    }

    fn draw_enum(&mut self) -> Ty {
        let name = self.fresh_type_name("Mode");
        let n = self.rng.range(1, 4) as usize;
        let mut variants: Vec<String> = Vec::new();
        while variants.len() < n {
            let v = upper_first(self.rng.pick(WORDS));
            if !variants.contains(&v) {
                variants.push(v);
            }
        }
        let rule = if self.rng.chance(0.5) {
            Some(
                self.rng
                    .pick(&["lowercase", "camelCase", "SCREAMING_SNAKE_CASE"]),
            )
        } else {
            None
        };
        let mut json: Vec<String> = variants.iter().map(|v| rename_variant(rule, v)).collect();
        let mut renames = vec![None; n];
        if n > 1 && self.wrong("two enum variants with one JSON name") {
            renames[1] = Some(json[0].clone());
            json[1] = json[0].clone();
        }
        let mut text = String::new();
        let _ = writeln!(text, "/// {name} is a mode.\n#[derive(Schema)]");
        if let Some(rule) = rule {
            let _ = writeln!(text, "#[serde(rename_all = \"{rule}\")]");
        }
        let _ = writeln!(text, "pub enum {name} {{");
        for (v, r) in variants.iter().zip(&renames) {
            if let Some(r) = r {
                let _ = writeln!(text, "    #[serde(rename = \"{r}\")]");
            }
            let _ = writeln!(text, "    {v},");
        }
        text.push_str("}\n");
        self.enums.push(EnumDef { name, text, json });
        Ty::Enum(self.enums.len() - 1)
    }

    fn rust_type(&self, ty: &Ty) -> String {
        match ty {
            Ty::Bool => "bool".into(),
            Ty::I32 => "i32".into(),
            Ty::I64 => "i64".into(),
            Ty::F64 => "f64".into(),
            Ty::Str => "String".into(),
            Ty::IntOrString => "IntOrString".into(),
            Ty::Quantity => "Quantity".into(),
            Ty::Json => "serde_json::Value".into(),
            Ty::Vec(t) => format!("Vec<{}>", self.rust_type(t)),
            Ty::Map(t) => format!("BTreeMap<String, {}>", self.rust_type(t)),
            Ty::Opt(t) => format!("Option<{}>", self.rust_type(t)),
            Ty::Struct(i) => self.structs[*i].name.clone(),
            Ty::Enum(i) => self.enums[*i].name.clone(),
        }
    }

    /// A value of `ty` and the markers that admit it (`validation(...)` and `schema(...)`
    /// arguments), for a field or list items.
    fn sample(&mut self, ty: &Ty, v: &mut Vec<String>, s: &mut Vec<String>) -> Value {
        match ty {
            Ty::Bool => Value::Bool(self.rng.chance(0.5)),
            Ty::I32 | Ty::I64 => {
                let step = self.rng.pick(&[1i64, 2, 5, 10]);
                let x = self.rng.range(-50, 50) * step;
                if self.rng.chance(0.3) {
                    let lo = x - self.rng.range(0, 20);
                    let exclusive = lo < x && self.rng.chance(0.3);
                    v.push(format!("minimum = {lo}"));
                    if exclusive {
                        v.push("exclusive_minimum".into());
                    }
                }
                if self.rng.chance(0.3) {
                    let hi = x + self.rng.range(0, 20);
                    v.push(format!("maximum = {hi}"));
                    if hi > x && self.rng.chance(0.3) {
                        v.push("exclusive_maximum".into());
                    }
                }
                if step > 1 && self.rng.chance(0.2) {
                    v.push(format!("multiple_of = {step}"));
                }
                if self.rng.chance(0.1) {
                    v.push(format!("enum = [{x}, {}]", x + 1));
                }
                // Inside lists and maps too: operator-gen estimates the cost as the API server
                // does (this rule costs 2 per value, within the budget at any count).
                if self.rng.chance(0.1) {
                    // The rule's own mistakes are operator-gen's to find (it compiles rules as
                    // the API server does): a method an int does not have.
                    // (Not in a list's items: their markers' mistakes are not kept.)
                    let rule = if self.in_list + self.in_map == 0
                        && self.wrong("a CEL rule that does not compile")
                    {
                        format!("self.startsWith('{}')", x - 1)
                    } else {
                        format!("self >= {}", x - 1)
                    };
                    v.push(format!("cel(rule = \"{rule}\", message = \"too small\")"));
                }
                let mut sample = json!(x);
                if self.rng.chance(0.15) {
                    let mut d = x;
                    if self.wrong("a default outside its bounds") {
                        v.retain(|m| !m.starts_with("maximum") && m != "exclusive_maximum");
                        v.push(format!("maximum = {x}"));
                        d = x + 1;
                    }
                    s.push(format!("default = {d}"));
                }
                if self.rng.chance(0.1) {
                    s.push(format!("example = {x}"));
                }
                if matches!(ty, Ty::I32) && self.rng.chance(0.05) {
                    sample = json!(x);
                    v.push("format = \"int32\"".into());
                }
                sample
            }
            Ty::F64 => {
                self.dangerous = true;
                let x = self.rng.range(-100, 100) as f64 + 0.5;
                if self.rng.chance(0.3) {
                    v.push(format!("minimum = {}", x - 1.0));
                }
                if self.rng.chance(0.3) {
                    v.push(format!("maximum = {}", x + 2.25));
                }
                if self.rng.chance(0.1) {
                    s.push(format!("default = {x}"));
                }
                json!(x)
            }
            Ty::Str => {
                let text = if self.rng.chance(0.25) {
                    let (p, sample) = self.rng.pick(PATTERNS);
                    v.push(format!("pattern = {p:?}"));
                    sample.to_string()
                } else if self.rng.chance(0.1) {
                    let (f, sample) = self.rng.pick(FORMATS);
                    v.push(format!("format = {f:?}"));
                    sample.to_string()
                } else {
                    self.rng.pick(WORDS).to_string()
                };
                let len = text.chars().count() as i64;
                if self.rng.chance(0.2) {
                    v.push(format!("min_length = {}", self.rng.range(0, len)));
                }
                if self.rng.chance(0.2) {
                    let max = len + self.rng.range(0, 5);
                    v.push(format!("max_length = {max}"));
                    if self.rng.chance(0.15) && self.wrong("a default longer than max_length") {
                        s.push(format!("default = {:?}", "x".repeat(max as usize + 1)));
                        return json!(text);
                    }
                }
                if self.rng.chance(0.1) {
                    v.push(format!("enum = [{text:?}, \"other\"]"));
                    if self.wrong("a default not in the enum") {
                        s.push("default = \"neither\"".into());
                        return json!(text);
                    }
                }
                // size() is for strings; a formatted one is a timestamp or bytes to CEL.
                let formatted = v.iter().any(|m| m.starts_with("format"));
                if !formatted && self.rng.chance(0.1) {
                    v.push(
                        if self.in_list + self.in_map == 0
                            && self.wrong("a CEL rule that is not a bool")
                        {
                            "cel(rule = \"self.size()\")".into()
                        } else {
                            "cel(rule = \"self.size() < 100\")".into()
                        },
                    );
                }
                if self.rng.chance(0.15) {
                    s.push(format!("default = {text:?}"));
                }
                json!(text)
            }
            Ty::IntOrString => {
                if self.rng.chance(0.5) {
                    json!(self.rng.range(1, 9000))
                } else {
                    json!("http")
                }
            }
            Ty::Quantity => json!(self.rng.pick(&["1Gi", "250m", "2"])),
            Ty::Json => json!({ "free": [1, "two", { "three": null }] }),
            Ty::Enum(i) => {
                let e = &self.enums[*i];
                let j = self.rng.below(e.json.len() as u64) as usize;
                let value = e.json[j].clone();
                if self.rng.chance(0.15) {
                    s.push(format!("default = {value:?}"));
                }
                json!(value)
            }
            Ty::Struct(i) => {
                let sample = Value::Object(self.structs[*i].sample.clone());
                if self.rng.chance(0.1) {
                    s.push(format!("default = json!({sample})"));
                }
                sample
            }
            Ty::Opt(t) => self.sample(t, v, s),
            Ty::Map(t) => {
                let mut iv = Vec::new();
                let mut is = Vec::new();
                // The values' own markers are not written: neither are their mistakes.
                let before = self.mistakes.len();
                let inner = self.sample(t, &mut iv, &mut is);
                self.mistakes.truncate(before);
                if self.rng.chance(0.2) {
                    v.push("min_properties = 1".into());
                }
                if self.rng.chance(0.15) {
                    // An atomic map has no correlated values: no immutable inside.
                    let atomic = t.is_scalar() && self.rng.chance(0.5);
                    let kind = if atomic { "atomic" } else { "granular" };
                    s.push(format!("map_type = \"{kind}\""));
                }
                if self.rng.chance(0.2) {
                    v.push(format!("max_properties = {}", self.rng.range(1, 4)));
                }
                json!({ "k1": inner })
            }
            Ty::Vec(t) => {
                let mut iv = Vec::new();
                let mut is = Vec::new();
                self.in_list += 1;
                let before = self.mistakes.len();
                let item = self.sample(t, &mut iv, &mut is);
                // Only the items' value constraints may be written, never their defaults.
                self.mistakes.truncate(before);
                self.in_list -= 1;
                let mut items = vec![item];
                if t.is_scalar() && self.rng.chance(0.3) {
                    s.push("list_type = \"set\"".into());
                } else if let Ty::Struct(i) = **t
                    && !self.structs[i].required_scalars.is_empty()
                    && self.rng.chance(0.4)
                {
                    let keys = self.structs[i].required_scalars.clone();
                    let key = if self.wrong("a list-map key that is not a field") {
                        "nosuchfield".to_string()
                    } else {
                        keys[self.rng.below(keys.len() as u64) as usize].clone()
                    };
                    s.push("list_type = \"map\"".into());
                    s.push(format!("list_map_keys = {key:?}"));
                } else if self.rng.chance(0.2) {
                    s.push("list_type = \"atomic\"".into());
                    items.push(items[0].clone());
                }
                if !iv.is_empty() && t.is_scalar() && self.rng.chance(0.5) {
                    v.push(format!("items({})", iv.join(", ")));
                }
                let n = items.len() as i64;
                if self.rng.chance(0.2) {
                    v.push(format!("min_items = {}", self.rng.range(0, n)));
                }
                if self.rng.chance(0.2) {
                    v.push(format!("max_items = {}", n + self.rng.range(0, 3)));
                }
                Value::Array(items)
            }
        }
    }

    /// A struct of 1..=5 fields; returns its index.
    fn draw_struct(&mut self, depth: u32, is_spec: bool) -> usize {
        let name = self.fresh_type_name(if is_spec { "Spec" } else { "Part" });
        let rename_all = if self.rng.chance(0.6) {
            Some(self.rng.pick(RENAME_ALL))
        } else {
            None
        };
        let count = self.rng.range(1, 5);
        let mut taken: Vec<String> = Vec::new();
        let mut json_names: Vec<String> = Vec::new();
        let mut fields = Vec::new();
        let mut sample = Map::new();
        let mut required_scalars = Vec::new();
        let mut selectable = Vec::new();
        let mut int32 = Vec::new();
        // Optional fields in the sample, for one-of groups.
        let mut optional_fields: Vec<String> = Vec::new();
        for _ in 0..count {
            // A Rust name whose JSON name is new (flattened fields take JSON names too).
            let rust = loop {
                let rust = self.field_name(&taken);
                let json = rename(rename_all, &rust);
                if !json_names.contains(&json) && !json_names.contains(&format!("{json}X")) {
                    break rust;
                }
                taken.push(rust);
            };
            taken.push(rust.clone());
            // A skipped field's type is not in the schema, so neither are its mistakes; a
            // flattened field's own markers are dropped, its type's are not.
            let before_type = self.mistakes.len();
            let dangerous_before = self.dangerous;
            let mut ty = self.draw_type(depth);
            let before_value = self.mistakes.len();
            let optional = self.rng.chance(0.4);
            let flatten = matches!(ty, Ty::Struct(_)) && self.rng.chance(0.15);
            let skip = !flatten && self.rng.chance(0.05);
            let mut serde = Vec::new();
            let mut json_name = rename(rename_all, &rust);
            if self.rng.chance(0.1) {
                json_name = format!("{json_name}X");
                serde.push(format!("rename = {json_name:?}"));
            }
            if !flatten
                && !skip
                && let Some(first) = json_names.first().cloned()
                && self.wrong("two fields with one JSON name")
            {
                json_name = first;
                serde.retain(|s| !s.starts_with("rename"));
                serde.push(format!("rename = {json_name:?}"));
            }
            let mut v = Vec::new();
            let mut s = Vec::new();
            let value = self.sample(&ty, &mut v, &mut s);
            if flatten {
                self.mistakes.truncate(before_value);
                serde.push("flatten".into());
                if let (Value::Object(inner), Ty::Struct(i)) = (&value, &ty) {
                    // Every field of the flattened struct, also those its sample leaves out.
                    let names = self.structs[*i].json_names.clone();
                    if names.iter().any(|k| json_names.contains(k)) {
                        self.mistakes.push("a flattened field that collides".into());
                    }
                    for (k, x) in inner {
                        sample.insert(k.clone(), x.clone());
                    }
                    json_names.extend(names);
                    required_scalars.extend(self.structs[*i].required_scalars.iter().cloned());
                }
                v.clear();
                s.clear();
            } else if skip {
                serde.push("skip".into());
                v.clear();
                s.clear();
                self.mistakes.truncate(before_type);
                self.dangerous = dangerous_before;
            } else {
                if optional {
                    ty = Ty::Opt(Box::new(ty));
                    if self.rng.chance(0.2) {
                        serde.push("skip_serializing_if = \"Option::is_none\"".into());
                    }
                } else if ty.is_scalar() && s.iter().all(|x| !x.starts_with("default")) {
                    required_scalars.push(json_name.clone());
                }
                if self.rng.chance(0.1) {
                    s.push("nullable".into());
                    required_scalars.retain(|k| k != &json_name);
                }
                let typeless = invisible_to_cel(&ty);
                if self.rng.chance(0.05)
                    // Not inside lists or maps: an oldSelf rule in a list that is not a map
                    // list is refused (error golden schema_contradictions), and the cost of
                    // one in a map or map list is the API server's to estimate.
                    && self.in_map + self.in_list == 0
                    && (!typeless || self.wrong("immutable on a value without a type"))
                {
                    v.push("immutable".into());
                }
                let mut forced_required = false;
                if self.rng.chance(0.05) {
                    if optional {
                        v.push("required".into());
                        forced_required = true;
                    } else {
                        v.push("optional".into());
                        required_scalars.retain(|k| k != &json_name);
                    }
                }
                if self.rng.chance(0.05) {
                    s.push(format!("title = \"The {rust}\""));
                }
                if self.rng.chance(0.03) {
                    s.push(
                        "external_docs(url = \"https://example.com/docs\", description = \"More\")"
                            .into(),
                    );
                }
                let inner = match &ty {
                    Ty::Opt(t) => &**t,
                    t => t,
                };
                if matches!(inner, Ty::Bool | Ty::I32 | Ty::I64 | Ty::Str | Ty::Enum(_)) {
                    selectable.push(json_name.clone());
                }
                if matches!(inner, Ty::I32) {
                    int32.push(json_name.clone());
                }
                if optional
                    && !forced_required
                    && !typeless
                    && !s
                        .iter()
                        .any(|x| x == "nullable" || x.starts_with("default"))
                {
                    optional_fields.push(json_name.clone());
                }
                sample.insert(json_name.clone(), value);
                json_names.push(json_name);
            }
            let mut text = String::new();
            let _ = writeln!(text, "    /// {} of the thing.", upper_first(&rust));
            if !serde.is_empty() {
                let _ = writeln!(text, "    #[serde({})]", serde.join(", "));
            }
            if !v.is_empty() {
                let _ = writeln!(text, "    #[validation({})]", v.join(", "));
            }
            if !s.is_empty() {
                let _ = writeln!(text, "    #[schema({})]", s.join(", "));
            }
            let _ = write!(text, "    pub {rust}: {},", self.rust_type(&ty));
            fields.push(text);
        }
        // A one-of group of two optional fields; the sample keeps to it.
        let mut type_markers = Vec::new();
        // Not in lists or maps: the API server estimates the cost of a rule there from the
        // container's bounds and refuses it when too high (see the README).
        if optional_fields.len() >= 2 && self.in_list + self.in_map == 0 && self.rng.chance(0.2) {
            let (a, b) = (optional_fields[0].clone(), optional_fields[1].clone());
            let group = self
                .rng
                .pick(&["exactly_one_of", "at_most_one_of", "at_least_one_of"]);
            let b_named = if self.wrong("a one-of group naming no field") {
                "nosuchfield".to_string()
            } else {
                b.clone()
            };
            type_markers.push(format!("{group} = [{a:?}, {b_named:?}]"));
            if group != "at_least_one_of" {
                sample.remove(&b);
            }
        }
        self.structs.push(StructDef {
            name,
            rename_all,
            json_names,
            fields,
            sample,
            required_scalars,
            selectable,
            int32,
            type_markers,
        });
        self.structs.len() - 1
    }

    fn struct_text(&self, d: &StructDef) -> String {
        let mut text = format!("/// {} is part of the API.\n#[derive(Schema)]\n", d.name);
        if let Some(rule) = d.rename_all {
            let _ = writeln!(text, "#[serde(rename_all = \"{rule}\")]");
        }
        if !d.type_markers.is_empty() {
            let _ = writeln!(text, "#[validation({})]", d.type_markers.join(", "));
        }
        let _ = writeln!(text, "pub struct {} {{", d.name);
        for f in &d.fields {
            let _ = writeln!(text, "{f}");
        }
        text.push_str("}\n");
        text
    }

    /// A DNS label for names: mostly valid, sometimes not (deliberately).
    fn label(&mut self, what: &str) -> String {
        let base = format!("{}{}", self.rng.pick(WORDS), self.rng.below(100));
        if !self.wrong(what) {
            return base;
        }
        match self.rng.below(5) {
            0 => format!("{base}_x"),
            1 => base.to_uppercase(),
            2 => String::new(),
            3 => format!("{base} two"),
            _ => "a".repeat(64),
        }
    }

    /// One case: 1..=3 kinds in one group, in one file per version.
    pub fn case(seed: u64, wrong: f64) -> Case {
        let mut g = Generator::new(seed, wrong);
        let group = if g.wrong("a group that is not a DNS subdomain") {
            format!("Gen_{seed}.example.com")
        } else {
            format!("g{seed}.gen.example.com")
        };
        let kinds = g.rng.range(1, 3);
        let mut files = Vec::new();
        let mut instances = Vec::new();
        let mut kind_names: Vec<String> = Vec::new();
        // Each kind's plural when given explicitly.
        let mut plurals: Vec<Option<String>> = Vec::new();
        // The resource names (plural, singular, short names) each kind claims in the group.
        let mut claimed: Vec<(String, String)> = Vec::new();
        for k in 0..kinds {
            let mut kind = upper_first(g.rng.pick(WORDS));
            if kind_names.contains(&kind) {
                kind = format!("{kind}{k}");
            }
            if g.wrong("a kind the API server refuses") {
                kind = g
                    .rng
                    .pick(&["Wid_get", "Wïdget", "9Lives", "lower"])
                    .to_string();
            }
            let mut plural = None;
            let mut clash = false;
            if let Some(first) = kind_names.first().cloned()
                && g.wrong("two kinds with one CRD name")
            {
                clash = true;
                match &plurals[0] {
                    Some(p) => plural = Some(p.clone()),
                    None => kind = first.to_uppercase(),
                }
            }
            kind_names.push(kind.clone());
            if !clash && g.rng.chance(0.2) {
                plural = Some(g.label("a plural that is not a DNS label"));
            }
            // The names every version repeats (controller-gen merges them).
            let mut names = Vec::new();
            if g.rng.chance(0.5) {
                names.push("namespaced".to_string());
            } else if g.rng.chance(0.5) {
                names.push("scope = \"Cluster\"".into());
            }
            if let Some(p) = &plural {
                names.push(format!("plural = {p:?}"));
            }
            plurals.push(plural);
            let mut claims = vec![
                plurals
                    .last()
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| operator_gen::default_plural(&kind)),
            ];
            if g.rng.chance(0.1) {
                let p = g.label("a singular that is not a DNS label");
                names.push(format!("singular = {p:?}"));
                claims.push(p);
            } else {
                claims.push(kind.to_ascii_lowercase());
            }
            if g.rng.chance(0.3) {
                let a = g.label("a short name that is not a DNS label");
                names.push(format!("shortnames = [{a:?}]"));
                claims.push(a);
            }
            // A name another kind claims is a mistake (unless the CRD names clash already).
            if !clash
                && claims
                    .iter()
                    .any(|c| claimed.iter().any(|(n, k)| n == c && *k != kind))
            {
                g.mistakes
                    .push("a resource name another kind of the group claims".into());
            }
            claimed.extend(claims.into_iter().map(|c| (c, kind.clone())));
            if g.rng.chance(0.2) {
                let a = g.label("a category that is not a DNS label");
                names.push(format!("categories = [{a:?}, \"all\"]"));
            }
            if g.rng.chance(0.1) {
                names.push(
                    "annotations = [\"gen.example.com/seed=yes\"], labels = [\"tier=gen\"]".into(),
                );
            }
            // One version, or two with one of them the storage version.
            let mut versions: Vec<String> = vec![if g.wrong("a version that is not a DNS label") {
                "V1_0".to_string()
            } else {
                g.rng.pick(&["v1", "v1alpha1", "v2beta3"]).to_string()
            }];
            if g.rng.chance(0.2) {
                let other = g.rng.pick(&["v2", "v1beta1", "v3alpha2"]).to_string();
                versions.push(other);
            }
            let storage = g.rng.below(versions.len() as u64) as usize;
            let storage_mistake =
                versions.len() > 1 && g.wrong("two versions and not one storage version");
            for (vi, version) in versions.iter().enumerate() {
                let mut resource = vec![
                    format!("group = {group:?}"),
                    format!("version = {version:?}"),
                    format!("kind = {kind:?}"),
                ];
                resource.extend(names.iter().cloned());
                let mut served = true;
                if versions.len() > 1 {
                    // The mistake: every version the storage version, or none.
                    let is_storage = if storage_mistake {
                        seed.is_multiple_of(2)
                    } else {
                        vi == storage
                    };
                    if is_storage {
                        resource.push("storage".into());
                    } else if g.rng.chance(0.2) {
                        resource.push("served = false".into());
                        served = false;
                    } else if g.rng.chance(0.2) {
                        resource.push("deprecated = \"use the storage version\"".into());
                    }
                }
                g.structs.clear();
                g.enums.clear();
                let spec = g.draw_struct(0, true);
                let with_status = g.rng.chance(0.6);
                let status = with_status.then(|| g.draw_struct(1, false));
                let spec_def = &g.structs[spec];
                if !spec_def.selectable.is_empty() && g.rng.chance(0.15) {
                    let f = spec_def.selectable[0].clone();
                    resource.push(format!("selectable_fields = [\".spec.{f}\"]"));
                }
                let mut subresources = Vec::new();
                if with_status {
                    subresources.push("status".to_string());
                }
                let status_int32 = status.and_then(|st| g.structs[st].int32.first().cloned());
                // The API server refuses a negative number of replicas at the scale path.
                let replicas = g.structs[spec]
                    .int32
                    .iter()
                    .find(|f| {
                        g.structs[spec]
                            .sample
                            .get(*f)
                            .and_then(Value::as_i64)
                            .is_some_and(|n| n >= 0)
                    })
                    .cloned();
                if let (Some(replicas), Some(observed)) = (replicas, status_int32)
                    && g.rng.chance(0.5)
                {
                    subresources.push(format!(
                        "scale(spec_path = \".spec.{replicas}\", status_path = \".status.{observed}\")"
                    ));
                }
                let mut text = String::from(
                    "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\n\
                     use k8s_openapi::apimachinery::pkg::api::resource::Quantity;\n\
                     use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;\n\
                     use std::collections::BTreeMap;\n\n",
                );
                for e in &g.enums {
                    text.push_str(&e.text);
                    text.push('\n');
                }
                for d in &g.structs {
                    text.push_str(&g.struct_text(d));
                    text.push('\n');
                }
                let _ = writeln!(text, "/// {kind} is a generated kind.");
                text.push_str("#[derive(CustomResource)]\n");
                let _ = writeln!(text, "#[resource({})]", resource.join(", "));
                if !subresources.is_empty() {
                    let _ = writeln!(text, "#[subresource({})]", subresources.join(", "));
                }
                let spec_sample = g.structs[spec].sample.clone();
                if g.rng.chance(0.3) {
                    let (object, field) = match spec_sample.keys().next() {
                        Some(f) => ("spec", f.clone()),
                        None => ("metadata", "name".to_string()),
                    };
                    let name = if g.wrong("an empty print-column name") {
                        String::new()
                    } else {
                        upper_first(&field)
                    };
                    let path = if g.wrong("a JSONPath whose brackets do not close") {
                        format!(".{object}[{field:?}")
                    } else {
                        format!(".{object}.{field}")
                    };
                    let ty = g
                        .rng
                        .pick(&["string", "integer", "boolean", "date", "number"]);
                    let mut extra = String::new();
                    if g.rng.chance(0.3) {
                        extra.push_str(", priority = 1, description = \"A column\"");
                    }
                    let _ = writeln!(
                        text,
                        "#[printcolumn(name = {name:?}, type = {ty:?}, json_path = {path:?}{extra})]"
                    );
                }
                let _ = writeln!(text, "pub struct {kind} {{\n    pub metadata: ObjectMeta,");
                let _ = writeln!(text, "    pub spec: {},", g.structs[spec].name);
                if let Some(st) = status {
                    let _ = writeln!(text, "    pub status: Option<{}>,", g.structs[st].name);
                }
                text.push_str("}\n");
                let module = format!("{}{k}", version.to_lowercase().replace('_', ""));
                files.push((format!("{module}.rs"), text));
                // Objects are stored in the storage version, pruned by its schema, and the
                // versions' schemas differ: only the storage version's object round-trips.
                if served && (versions.len() == 1 || vi == storage) {
                    instances.push(Instance {
                        group: group.clone(),
                        version: version.clone(),
                        kind: kind.clone(),
                        body: json!({ "spec": Value::Object(spec_sample) }),
                    });
                }
            }
        }
        Case {
            seed,
            files,
            allow_dangerous_types: g.dangerous && !g.wrong("f64 without allow-dangerous-types"),
            instances,
            mistakes: g.mistakes,
        }
    }
}
