//! One version's schema as Rust items: the choice of a Rust type for each sub-schema, the
//! markers that make operator-gen write back what the type alone does not, and the items
//! rendered as text.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use super::known::KnownTypes;
use super::text::{
    doc_comment, json_lit, number_lit, pascal, serde_camel, singular, snake, string_lit,
};
use crate::api::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

/// A Rust type, before it is spelled (imports are decided once every type is known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A type of the prelude or a primitive: `String`, `bool`, `i32`, `i64`, `isize`, `f64`.
    Prim(&'static str),
    /// A type of another crate, by its full path.
    Known(String),
    /// A generated item, by name.
    Local(String),
    Vec(Box<Ty>),
    Map(Box<Ty>),
    Option(Box<Ty>),
}

/// A marker key with its value, inside `#[validation(...)]` or `#[schema(...)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    Validation(String),
    Schema(String),
}

impl Marker {
    /// Whether `#[validation(items(...))]` takes it.
    fn fits_items(&self) -> bool {
        match self {
            Marker::Validation(s) => !s.starts_with("items("),
            Marker::Schema(s) => [
                "preserve_unknown_fields",
                "embedded_resource",
                "int_or_string",
            ]
            .contains(&s.as_str()),
        }
    }

    fn text(&self) -> &str {
        match self {
            Marker::Validation(s) | Marker::Schema(s) => s,
        }
    }
}

/// Where a sub-schema sits: a struct's field, a list's items or a map's values. A field's
/// description is its doc comment; the items' and values' is their type's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pos {
    Field,
    Items,
    Values,
}

pub struct Field {
    pub doc: Option<String>,
    pub ident: String,
    pub json: String,
    pub ty: Ty,
    pub optional: bool,
    pub markers: Vec<Marker>,
}

pub enum ItemKind {
    Struct(Vec<Field>),
    Newtype(Ty),
    Enum(Vec<(String, String)>),
    /// `#[serde(untagged)] enum { Int(isize), Str(String) }`.
    IntOrStr,
}

pub struct Item {
    pub name: String,
    pub doc: Option<String>,
    pub markers: Vec<Marker>,
    pub kind: ItemKind,
}

/// The items of one file, and what could not be said in them.
pub struct Emitter<'k> {
    known: &'k KnownTypes,
    pub items: Vec<Item>,
    taken: BTreeSet<String>,
    by_key: HashMap<String, String>,
    /// What the schema says that no Rust type or marker expresses: `path: what`.
    pub notes: Vec<String>,
    /// Whether a `number` made an `f64` (operator-gen then needs allow-dangerous-types).
    pub floats: bool,
    /// Known types used, by full path.
    pub used: BTreeSet<String>,
}

/// Names a generated item may not take: what the file imports or the prelude has.
const RESERVED: &[&str] = &[
    "Option",
    "Some",
    "None",
    "Vec",
    "String",
    "Box",
    "Result",
    "Ok",
    "Err",
    "Default",
    "BTreeMap",
    "Value",
    "Serialize",
    "Deserialize",
    "Schema",
    "CustomResource",
    "Clone",
    "Debug",
    "PartialEq",
    "ObjectMeta",
    "Time",
    "IntOrString",
    "Quantity",
    "Condition",
    "Copy",
    "Eq",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "Iterator",
    "ToString",
    "From",
    "Into",
];

impl<'k> Emitter<'k> {
    pub fn new(known: &'k KnownTypes, root: &str) -> Self {
        let mut taken: BTreeSet<String> = RESERVED.iter().map(|s| s.to_string()).collect();
        taken.insert(root.to_string());
        Emitter {
            known,
            items: Vec::new(),
            taken,
            by_key: HashMap::new(),
            notes: Vec::new(),
            floats: false,
            used: BTreeSet::new(),
        }
    }

    fn note(&mut self, path: &str, what: String) {
        let at = if path.is_empty() { "." } else { path };
        self.notes.push(format!("{at}: {what}"));
    }

    /// A free name: `hint`, else the parent's name before it, else numbered.
    fn name(&mut self, hint: &str, parent: &str) -> String {
        let hint = pascal(hint);
        let mut candidates = vec![hint.clone()];
        if !parent.is_empty() && !hint.starts_with(parent) {
            candidates.push(format!("{parent}{hint}"));
        }
        for c in candidates {
            if self.taken.insert(c.clone()) {
                return c;
            }
        }
        let base = if parent.is_empty() || hint.starts_with(parent) {
            hint
        } else {
            format!("{parent}{hint}")
        };
        (2..)
            .map(|n| format!("{base}{n}"))
            .find(|c| self.taken.insert(c.clone()))
            .expect("a free name")
    }

    /// The fields of an object schema, for a struct named `owner` at `path`.
    pub fn fields(
        &mut self,
        properties: &BTreeMap<String, JSONSchemaProps>,
        required: &[String],
        owner: &str,
        path: &str,
        hints: &dyn Fn(&str) -> Option<String>,
    ) -> Vec<Field> {
        let mut fields = Vec::new();
        let mut idents = BTreeSet::new();
        for (json, prop) in properties {
            let hint = hints(json).unwrap_or_else(|| json.clone());
            let at = format!("{path}.{json}");
            let (ty, markers) = self.shape(prop, &hint, owner, &at, Pos::Field);
            let mut ident = snake(json);
            while !idents.insert(ident.clone()) {
                ident.push('_');
            }
            let optional = !required.contains(json);
            let value = matches!(&ty, Ty::Known(k) if k == "serde_json::Value");
            let (ty, markers) = if optional {
                (Ty::Option(Box::new(ty)), markers)
            } else if prop.nullable == Some(true) && !value {
                // A required field that may be null: an `Option` serde reads null into,
                // marked required (and written as null, not left out).
                let mut markers = markers;
                markers.insert(0, Marker::Validation("required".into()));
                (Ty::Option(Box::new(ty)), markers)
            } else if value
                && prop.nullable != Some(true)
                && !markers
                    .iter()
                    .any(|m| m.text().starts_with("type =") || m.text() == "schemaless")
            {
                // operator-gen makes a required `Value` nullable (serde writes null for
                // it); without `nullable` in the CRD, the schema is spelled out instead.
                let mut markers = markers;
                markers.insert(0, Marker::Schema("schemaless".into()));
                markers.insert(1, Marker::Schema("preserve_unknown_fields".into()));
                (ty, markers)
            } else {
                (ty, markers)
            };
            fields.push(Field {
                doc: prop.description.clone(),
                ident,
                json: json.clone(),
                ty,
                optional,
                markers,
            });
        }
        for r in required {
            if !properties.contains_key(r) {
                self.note(
                    path,
                    format!("`required` names `{r}`, which is no property: left out"),
                );
            }
        }
        fields
    }

    /// The Rust type of the sub-schema `s` at `path`, and the markers that give it the keys
    /// the type does not. `hint` names a new item; `parent` is the enclosing item's name.
    pub fn shape(
        &mut self,
        s: &JSONSchemaProps,
        hint: &str,
        parent: &str,
        path: &str,
        pos: Pos,
    ) -> (Ty, Vec<Marker>) {
        let description = if pos == Pos::Field {
            None
        } else {
            s.description.clone()
        };
        // A Kubernetes type, when the schema is exactly its (the field's description over
        // the type's).
        if let Some(known) = self.known.find(s, pos == Pos::Field) {
            self.used.insert(known.clone());
            return (Ty::Known(known), Vec::new());
        }
        let mut rest = s.clone();
        rest.description = None;
        let mut integer = false;
        let ty = match rest.type_.as_deref() {
            Some("object")
                if rest.properties.as_ref().is_some_and(|p| !p.is_empty())
                    || (rest.additional_properties.is_none()
                        && rest.x_kubernetes_preserve_unknown_fields != Some(true)) =>
            {
                // A default goes on the field: no marker sets one on a type.
                let mut without = s.clone();
                let default = without.default.take();
                let ty = self.object(&without, hint, parent, path, pos);
                let markers = match default {
                    Some(d) if pos == Pos::Field => {
                        vec![Marker::Schema(format!("default = {}", json_lit(&d.0)))]
                    }
                    Some(d) => {
                        self.note(path, format!("a default inside a list or map ({}) is not expressed: no marker sets it there", d.0));
                        Vec::new()
                    }
                    None => Vec::new(),
                };
                return (ty, markers);
            }
            Some("object")
                if matches!(
                    rest.additional_properties,
                    Some(JSONSchemaPropsOrBool::Schema(_))
                ) =>
            {
                rest.type_ = None;
                let Some(JSONSchemaPropsOrBool::Schema(values)) = rest.additional_properties.take()
                else {
                    unreachable!("matched above")
                };
                let (value, markers) =
                    self.shape(&values, hint, parent, &format!("{path}.*"), Pos::Values);
                let value = self.wrap(
                    value,
                    markers,
                    &values,
                    &format!("{hint}Value"),
                    parent,
                    Pos::Values,
                );
                Ty::Map(Box::new(value))
            }
            Some("object") if rest.x_kubernetes_preserve_unknown_fields == Some(true) => {
                // `serde_json::Value` is preserve-unknown-fields; the type stays a marker.
                rest.x_kubernetes_preserve_unknown_fields = None;
                self.used.insert("serde_json::Value".into());
                Ty::Known("serde_json::Value".into())
            }
            Some("array") => {
                rest.type_ = None;
                match rest.items.take() {
                    Some(JSONSchemaPropsOrArray::Schema(items)) => {
                        let item_hint = singular(hint);
                        let (item, markers) = self.shape(
                            &items,
                            &item_hint,
                            parent,
                            &format!("{path}[*]"),
                            Pos::Items,
                        );
                        let needs_type = description_needs_type(&items, &item);
                        if !needs_type && markers.iter().all(Marker::fits_items) {
                            if !markers.is_empty() {
                                let inner: Vec<&str> = markers.iter().map(Marker::text).collect();
                                let mut out = self.markers(rest, false, path, pos, false);
                                out.insert(
                                    0,
                                    Marker::Validation(format!("items({})", inner.join(", "))),
                                );
                                return (Ty::Vec(Box::new(item)), out);
                            }
                            Ty::Vec(Box::new(item))
                        } else {
                            let item =
                                self.wrap(item, markers, &items, &item_hint, parent, Pos::Items);
                            Ty::Vec(Box::new(item))
                        }
                    }
                    Some(JSONSchemaPropsOrArray::Schemas(list)) => {
                        self.note(path, format!("`items` as a list of {} schemas (a tuple) is not expressed: a list of any JSON values instead", list.len()));
                        self.used.insert("serde_json::Value".into());
                        Ty::Vec(Box::new(Ty::Known("serde_json::Value".into())))
                    }
                    None => {
                        self.note(path, "a list without `items` is not expressed: a list of any JSON values instead".into());
                        self.used.insert("serde_json::Value".into());
                        Ty::Vec(Box::new(Ty::Known("serde_json::Value".into())))
                    }
                }
            }
            Some("string") => {
                rest.type_ = None;
                let strings: Option<Vec<String>> = rest.enum_.as_ref().and_then(|values| {
                    values
                        .iter()
                        .map(|v| v.0.as_str().map(str::to_string))
                        .collect()
                });
                if let Some(values) = strings.filter(|v| !v.is_empty()) {
                    rest.enum_ = None;
                    Ty::Local(self.enumeration(values, description.clone(), hint, parent))
                } else if rest.format.as_deref() == Some("date-time") {
                    rest.format = None;
                    let time = "k8s_openapi::apimachinery::pkg::apis::meta::v1::Time".to_string();
                    self.used.insert(time.clone());
                    Ty::Known(time)
                } else {
                    Ty::Prim("String")
                }
            }
            Some("integer") => {
                rest.type_ = None;
                integer = true;
                match rest.format.as_deref() {
                    Some("int32") => {
                        rest.format = None;
                        Ty::Prim("i32")
                    }
                    Some("int64") => {
                        rest.format = None;
                        Ty::Prim("i64")
                    }
                    _ => Ty::Prim("isize"),
                }
            }
            Some("number") => {
                rest.type_ = None;
                self.floats = true;
                Ty::Prim("f64")
            }
            Some("boolean") => {
                rest.type_ = None;
                Ty::Prim("bool")
            }
            None if rest.x_kubernetes_int_or_string == Some(true) => {
                // What controller-gen writes for intstr.IntOrString: k8s-openapi's type
                // with its schema left to the markers (operator-gen's own IntOrString
                // schema adds the bounds of an i32, which the CRD may not have).
                let ios = "k8s_openapi::apimachinery::pkg::util::intstr::IntOrString".to_string();
                self.used.insert(ios.clone());
                let mut markers = vec![Marker::Schema("schemaless".into())];
                if rest.any_of == Some(vec![typed("integer"), typed("string")]) {
                    rest.any_of = None;
                }
                if pos != Pos::Field && rest.any_of.is_none() {
                    // `schemaless` is for fields only: inside a list or map, an untagged
                    // enum of an integer and a string, whose schema is controller-gen's
                    // int-or-string (operator-gen's IntOrString adds an i32's bounds).
                    rest.x_kubernetes_int_or_string = None;
                    let name = self.int_or_str(description.clone(), hint, parent);
                    let markers = self.markers(rest, true, path, pos, false);
                    return (Ty::Local(name), markers);
                }
                markers.extend(self.markers(rest, true, path, pos, false));
                return (Ty::Known(ios), markers);
            }
            None if rest.x_kubernetes_preserve_unknown_fields == Some(true) => {
                rest.x_kubernetes_preserve_unknown_fields = None;
                self.used.insert("serde_json::Value".into());
                Ty::Known("serde_json::Value".into())
            }
            None if rest == JSONSchemaProps::default() && pos == Pos::Field => {
                self.used.insert("serde_json::Value".into());
                return (
                    Ty::Known("serde_json::Value".into()),
                    vec![Marker::Schema("schemaless".into())],
                );
            }
            other => {
                self.note(
                    path,
                    format!("a schema of type {other:?} that no Rust type holds exactly: any JSON value instead"),
                );
                rest.type_ = None;
                self.used.insert("serde_json::Value".into());
                Ty::Known("serde_json::Value".into())
            }
        };
        let markers = self.markers(rest, integer, path, pos, false);
        (ty, markers)
    }

    /// `ty` as the type of items or values: itself when it needs no markers and carries
    /// the schema's description (or there is none), else a newtype with them.
    fn wrap(
        &mut self,
        ty: Ty,
        markers: Vec<Marker>,
        schema: &JSONSchemaProps,
        hint: &str,
        parent: &str,
        pos: Pos,
    ) -> Ty {
        // An `Option` item or value is `nullable` by itself.
        let nullable = Marker::Schema("nullable".into());
        let carried = !description_needs_type(schema, &ty);
        if carried && markers.iter().all(|m| *m == nullable) {
            return if markers.is_empty() {
                ty
            } else {
                Ty::Option(Box::new(ty))
            };
        }
        // A newtype holds null as `None` too (the marker says it in the schema).
        let ty = if markers.contains(&nullable) {
            Ty::Option(Box::new(ty))
        } else {
            ty
        };
        let doc = if pos == Pos::Field {
            None
        } else {
            schema.description.clone()
        };
        let key = format!("newtype:{ty:?}:{markers:?}:{doc:?}");
        if let Some(name) = self.by_key.get(&key) {
            return Ty::Local(name.clone());
        }
        let name = self.name(hint, parent);
        self.by_key.insert(key, name.clone());
        self.items.push(Item {
            name: name.clone(),
            doc,
            markers,
            kind: ItemKind::Newtype(ty),
        });
        Ty::Local(name)
    }

    /// A struct for an object schema with properties (or none at all).
    pub fn object(
        &mut self,
        s: &JSONSchemaProps,
        hint: &str,
        parent: &str,
        path: &str,
        pos: Pos,
    ) -> Ty {
        let doc = if pos == Pos::Field {
            None
        } else {
            s.description.clone()
        };
        let mut keyed = s.clone();
        keyed.description = doc.clone();
        let key = format!(
            "struct:{}",
            serde_json::to_string(&keyed).expect("a schema serializes")
        );
        if let Some(name) = self.by_key.get(&key) {
            return Ty::Local(name.clone());
        }
        let name = self.name(hint, parent);
        self.by_key.insert(key, name.clone());
        let mut rest = s.clone();
        rest.description = None;
        rest.type_ = None;
        let properties = rest.properties.take().unwrap_or_default();
        let required = rest.required.take().unwrap_or_default();
        // Reserve the item's place before its fields make theirs.
        let index = self.items.len();
        self.items.push(Item {
            name: name.clone(),
            doc: None,
            markers: Vec::new(),
            kind: ItemKind::Struct(Vec::new()),
        });
        let fields = self.fields(&properties, &required, &name, path, &|_| None);
        let markers = self.markers(rest, false, path, Pos::Field, true);
        let item = &mut self.items[index];
        item.doc = doc;
        item.markers = markers
            .into_iter()
            .filter(|m| !m.text().starts_with("default"))
            .collect();
        item.kind = ItemKind::Struct(fields);
        Ty::Local(name)
    }

    /// An untagged enum of an integer and a string: an int-or-string where `schemaless`
    /// cannot go.
    fn int_or_str(&mut self, doc: Option<String>, hint: &str, parent: &str) -> String {
        let key = format!("intorstr:{hint}:{doc:?}");
        if let Some(name) = self.by_key.get(&key) {
            return name.clone();
        }
        let name = self.name(hint, parent);
        self.by_key.insert(key, name.clone());
        self.items.push(Item {
            name: name.clone(),
            doc,
            markers: Vec::new(),
            kind: ItemKind::IntOrStr,
        });
        name
    }

    /// A Rust enum of unit variants for a string `enum`, each spelled as written.
    fn enumeration(
        &mut self,
        values: Vec<String>,
        doc: Option<String>,
        hint: &str,
        parent: &str,
    ) -> String {
        let key = format!("enum:{values:?}:{doc:?}");
        if let Some(name) = self.by_key.get(&key) {
            return name.clone();
        }
        let name = self.name(hint, parent);
        self.by_key.insert(key, name.clone());
        let mut seen = BTreeSet::new();
        let variants = values
            .into_iter()
            .map(|v| {
                let mut ident = pascal(&v);
                while !seen.insert(ident.clone()) {
                    ident.push('_');
                }
                (ident, v)
            })
            .collect();
        self.items.push(Item {
            name: name.clone(),
            doc,
            markers: Vec::new(),
            kind: ItemKind::Enum(variants),
        });
        name
    }

    /// The markers for the keys left in `rest` (the type gives the others); what no marker
    /// says is noted. `structure` says the schema is a struct's (`x-kubernetes-map-type` is
    /// then `struct_type`).
    pub fn markers(
        &mut self,
        rest: JSONSchemaProps,
        integer: bool,
        path: &str,
        pos: Pos,
        structure: bool,
    ) -> Vec<Marker> {
        let mut rest = rest;
        let mut out = Vec::new();
        let v = |out: &mut Vec<Marker>, s: String| out.push(Marker::Validation(s));
        let sch = |out: &mut Vec<Marker>, s: String| out.push(Marker::Schema(s));
        if let Some(t) = rest.type_.take() {
            v(&mut out, format!("type = {}", string_lit(&t)));
        }
        if let Some(f) = rest.format.take() {
            v(&mut out, format!("format = {}", string_lit(&f)));
        }
        if let Some(values) = rest.enum_.take() {
            let list: Vec<String> = values.iter().map(|x| json_lit(&x.0)).collect();
            v(&mut out, format!("enum = [{}]", list.join(", ")));
        }
        if let Some(n) = rest.minimum.take() {
            v(&mut out, format!("minimum = {}", number_lit(n, integer)));
        }
        if let Some(n) = rest.maximum.take() {
            v(&mut out, format!("maximum = {}", number_lit(n, integer)));
        }
        for (flag, name) in [
            (rest.exclusive_minimum.take(), "exclusive_minimum"),
            (rest.exclusive_maximum.take(), "exclusive_maximum"),
        ] {
            match flag {
                Some(true) => v(&mut out, name.into()),
                Some(false) => self.note(
                    path,
                    format!("`{name}: false` is not written back (it is the default)"),
                ),
                None => {}
            }
        }
        if let Some(n) = rest.multiple_of.take() {
            v(
                &mut out,
                format!("multiple_of = {}", number_lit(n, integer)),
            );
        }
        for (n, name) in [
            (rest.min_length.take(), "min_length"),
            (rest.max_length.take(), "max_length"),
            (rest.min_items.take(), "min_items"),
            (rest.max_items.take(), "max_items"),
            (rest.min_properties.take(), "min_properties"),
            (rest.max_properties.take(), "max_properties"),
        ] {
            if let Some(n) = n {
                v(&mut out, format!("{name} = {n}"));
            }
        }
        if let Some(p) = rest.pattern.take() {
            v(&mut out, format!("pattern = {}", string_lit(&p)));
        }
        for rule in rest.x_kubernetes_validations.take().unwrap_or_default() {
            let mut args = vec![format!("rule = {}", string_lit(&rule.rule))];
            if let Some(m) = &rule.message {
                args.push(format!("message = {}", string_lit(m)));
            }
            if let Some(m) = &rule.message_expression {
                args.push(format!("message_expression = {}", string_lit(m)));
            }
            if let Some(r) = &rule.reason {
                args.push(format!("reason = {}", string_lit(r)));
            }
            if let Some(f) = &rule.field_path {
                args.push(format!("field_path = {}", string_lit(f)));
            }
            match rule.optional_old_self {
                Some(true) => args.push("optional_old_self".into()),
                Some(false) => self.note(
                    path,
                    "`optionalOldSelf: false` is not written back (it is the default)".into(),
                ),
                None => {}
            }
            v(&mut out, format!("cel({})", args.join(", ")));
        }
        match rest.nullable.take() {
            Some(true) => sch(&mut out, "nullable".into()),
            Some(false) => self.note(
                path,
                "`nullable: false` is not written back (it is the default)".into(),
            ),
            None => {}
        }
        if let Some(d) = rest.default.take() {
            if pos == Pos::Field {
                sch(&mut out, format!("default = {}", json_lit(&d.0)));
            } else {
                self.note(path, format!("a default inside a list or map ({}) is not expressed: no marker sets it there", d.0));
            }
        }
        if let Some(e) = rest.example.take() {
            sch(&mut out, format!("example = {}", json_lit(&e.0)));
        }
        if let Some(t) = rest.title.take() {
            sch(&mut out, format!("title = {}", string_lit(&t)));
        }
        if let Some(docs) = rest.external_docs.take() {
            let mut args = Vec::new();
            if let Some(u) = &docs.url {
                args.push(format!("url = {}", string_lit(u)));
            }
            if let Some(d) = &docs.description {
                args.push(format!("description = {}", string_lit(d)));
            }
            sch(&mut out, format!("external_docs({})", args.join(", ")));
        }
        if let Some(t) = rest.x_kubernetes_list_type.take() {
            sch(&mut out, format!("list_type = {}", string_lit(&t)));
        }
        if let Some(keys) = rest.x_kubernetes_list_map_keys.take() {
            let list: Vec<String> = keys.iter().map(|k| string_lit(k)).collect();
            sch(&mut out, format!("list_map_keys = [{}]", list.join(", ")));
        }
        if let Some(t) = rest.x_kubernetes_map_type.take() {
            let key = if structure { "struct_type" } else { "map_type" };
            sch(&mut out, format!("{key} = {}", string_lit(&t)));
        }
        if rest.x_kubernetes_preserve_unknown_fields.take() == Some(true) {
            sch(&mut out, "preserve_unknown_fields".into());
        }
        if rest.x_kubernetes_embedded_resource.take() == Some(true) {
            sch(&mut out, "embedded_resource".into());
        }
        if rest.x_kubernetes_int_or_string.take() == Some(true) {
            sch(&mut out, "int_or_string".into());
        }
        if rest.unique_items.take() == Some(true) {
            self.note(
                path,
                "`uniqueItems: true` is not expressed (the API server refuses it in CRDs)".into(),
            );
        }
        for (list, key) in [
            (rest.one_of.take(), "one_of"),
            (rest.any_of.take(), "any_of"),
            (rest.all_of.take(), "all_of"),
        ] {
            if let Some(list) = list {
                let json = serde_json::to_value(&list).expect("a schema serializes");
                v(&mut out, format!("{key} = json!({json})"));
            }
        }
        if let Some(not) = rest.not.take() {
            let json = serde_json::to_value(&not).expect("a schema serializes");
            v(&mut out, format!("not = json!({json})"));
        }
        if rest != JSONSchemaProps::default() {
            let left = serde_json::to_value(&rest).expect("a schema serializes");
            if let Value::Object(map) = left {
                for (key, value) in map {
                    self.note(
                        path,
                        format!(
                            "`{key}` ({value}) is not expressed: no Rust type or marker says it"
                        ),
                    );
                }
            }
        }
        out
    }
}

fn typed(ty: &str) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some(ty.into()),
        ..Default::default()
    }
}

/// Whether items or values with this schema need a type of their own to carry its
/// description (a generated struct or enum carries it already; a Kubernetes type was
/// matched with its own).
fn description_needs_type(schema: &JSONSchemaProps, ty: &Ty) -> bool {
    schema.description.is_some()
        && match ty {
            // Generated items carry the description as their doc comment; a recognised
            // Kubernetes type was matched with its own.
            Ty::Local(_) => false,
            Ty::Known(k) => {
                k == "serde_json::Value" || k.ends_with("::Time") || k.ends_with("::IntOrString")
            }
            _ => true,
        }
}

/// Whether values of `ty` have a `Default` (for the struct's derive).
fn has_default(ty: &Ty, items: &[Item]) -> bool {
    match ty {
        Ty::Prim(_) | Ty::Vec(_) | Ty::Map(_) | Ty::Option(_) => true,
        Ty::Known(path) => path == "serde_json::Value" || path.ends_with("::ObjectMeta"),
        Ty::Local(name) => items
            .iter()
            .find(|i| i.name == *name)
            .is_some_and(|i| match &i.kind {
                ItemKind::Struct(fields) => fields.iter().all(|f| has_default(&f.ty, items)),
                ItemKind::Newtype(inner) => has_default(inner, items),
                ItemKind::Enum(_) | ItemKind::IntOrStr => false,
            }),
    }
}

/// How each known type is spelled: its name where it is imported, else its path.
pub struct Spelling {
    short: HashMap<String, String>,
}

impl Spelling {
    /// Imports the known types in `used` whose names no item, none of `also_local` and no
    /// other import takes; returns the spelling and the `use` lines.
    pub fn new(
        used: &BTreeSet<String>,
        items: &[Item],
        also_local: &[&str],
    ) -> (Spelling, Vec<String>) {
        // The kind's own name is among `also_local`: `Time` as a kind spells
        // k8s-openapi's `Time` by its path.
        let locals: BTreeSet<&str> = items
            .iter()
            .map(|i| i.name.as_str())
            .chain(also_local.iter().copied())
            .collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        let all: BTreeSet<String> = used.iter().cloned().collect();
        for path in &all {
            *count.entry(last(path)).or_default() += 1;
        }
        let mut short = HashMap::new();
        let mut uses = Vec::new();
        for path in &all {
            let name = last(path);
            if count[name] == 1 && !locals.contains(name) {
                short.insert(path.clone(), name.to_string());
                uses.push(path.clone());
            }
        }
        (Spelling { short }, uses)
    }

    pub fn ty(&self, ty: &Ty) -> String {
        match ty {
            Ty::Prim(p) => p.to_string(),
            Ty::Known(path) => self
                .short
                .get(path)
                .cloned()
                .unwrap_or_else(|| path.clone()),
            Ty::Local(name) => name.clone(),
            Ty::Vec(inner) => format!("Vec<{}>", self.ty(inner)),
            Ty::Map(inner) => format!("BTreeMap<String, {}>", self.ty(inner)),
            Ty::Option(inner) => format!("Option<{}>", self.ty(inner)),
        }
    }
}

fn last(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

/// `#[validation(...)]` and `#[schema(...)]` lines for `markers`, at `indent`.
pub fn marker_attrs(markers: &[Marker], indent: &str) -> String {
    let (mut validation, mut schema) = (Vec::new(), Vec::new());
    for marker in markers {
        match marker {
            Marker::Validation(s) => validation.push(s.as_str()),
            Marker::Schema(s) => schema.push(s.as_str()),
        }
    }
    let mut out = String::new();
    for (attribute, keys) in [("validation", validation), ("schema", schema)] {
        if !keys.is_empty() {
            out.push_str(&format!("{indent}#[{attribute}({})]\n", keys.join(", ")));
        }
    }
    out
}

/// A struct's fields as text (`pub` each, doc comments, serde and markers), and what the
/// doc comments lose.
pub fn render_fields(
    camel: bool,
    owner: &str,
    fields: &[Field],
    spelling: &Spelling,
    lost: &mut Vec<String>,
) -> String {
    let mut out = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if let Some(doc) = &f.doc {
            let mut dropped = Vec::new();
            out.push_str(&doc_comment(doc, "    ", &mut dropped));
            lost.extend(
                dropped
                    .into_iter()
                    .map(|d| format!("{owner}.{}: {d}", f.json)),
            );
        }
        let mut serde = Vec::new();
        let spelled = if camel {
            serde_camel(&f.ident)
        } else {
            f.ident.clone()
        };
        if spelled != f.json {
            serde.push(format!("rename = {}", string_lit(&f.json)));
        }
        if f.optional {
            serde.push("default".into());
            serde.push("skip_serializing_if = \"Option::is_none\"".into());
        }
        if !serde.is_empty() {
            out.push_str(&format!("    #[serde({})]\n", serde.join(", ")));
        }
        out.push_str(&marker_attrs(&f.markers, "    "));
        out.push_str(&format!("    pub {}: {},\n", f.ident, spelling.ty(&f.ty)));
    }
    out
}

/// The items as text, in the order they were made (each after the one that uses it first).
pub fn render_items(items: &[Item], spelling: &Spelling, lost: &mut Vec<String>) -> String {
    let mut out = String::new();
    for item in items {
        out.push('\n');
        if let Some(doc) = &item.doc {
            let mut dropped = Vec::new();
            out.push_str(&doc_comment(doc, "", &mut dropped));
            lost.extend(dropped.into_iter().map(|d| format!("{}: {d}", item.name)));
        }
        match &item.kind {
            ItemKind::Struct(fields) => {
                let default = if fields.iter().all(|f| has_default(&f.ty, items)) {
                    "Default, "
                } else {
                    ""
                };
                out.push_str(&format!(
                    "#[derive(Schema, Clone, Debug, {default}PartialEq, Serialize, Deserialize)]\n#[serde(rename_all = \"camelCase\")]\n"
                ));
                out.push_str(&marker_attrs(&item.markers, ""));
                if fields.is_empty() {
                    out.push_str(&format!("pub struct {} {{}}\n", item.name));
                } else {
                    out.push_str(&format!("pub struct {} {{\n", item.name));
                    out.push_str(&render_fields(true, &item.name, fields, spelling, lost));
                    out.push_str("}\n");
                }
            }
            ItemKind::Newtype(inner) => {
                let default = if has_default(inner, items) {
                    "Default, "
                } else {
                    ""
                };
                out.push_str(&format!(
                    "#[derive(Schema, Clone, Debug, {default}PartialEq, Serialize, Deserialize)]\n"
                ));
                out.push_str(&marker_attrs(&item.markers, ""));
                out.push_str(&format!(
                    "pub struct {}(pub {});\n",
                    item.name,
                    spelling.ty(inner)
                ));
            }
            ItemKind::IntOrStr => {
                out.push_str(
                    "#[derive(Schema, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]\n#[serde(untagged)]\n",
                );
                out.push_str(&format!(
                    "pub enum {} {{\n    Int(isize),\n    Str(String),\n}}\n",
                    item.name
                ));
            }
            ItemKind::Enum(variants) => {
                out.push_str("#[derive(Schema, Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]\n");
                out.push_str(&format!("pub enum {} {{\n", item.name));
                for (ident, value) in variants {
                    if ident != value {
                        out.push_str(&format!("    #[serde(rename = {})]\n", string_lit(value)));
                    }
                    out.push_str(&format!("    {ident},\n"));
                }
                out.push_str("}\n");
            }
        }
    }
    out
}
