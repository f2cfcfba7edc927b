//! Rust type expressions to schemas: primitives, strings, lists, sets and maps, the
//! wrappers that serialize as their content, and names resolved to declared or Kubernetes
//! types (which become the declared type's schema, built once and reused).

use crate::api::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use crate::diagnostics::Misfit;

use super::rules::{cel_string, push_rule_from};
use super::{SchemaBuilder, Site, WRAPPERS, external, net};
use crate::known_types;
use crate::markers::CelRule;
use std::collections::HashMap;

use crate::model::{Body, Fields, Ty, TyKind, TypeDef};
use crate::place::Loc;
use crate::source::Resolved;

impl<'m> SchemaBuilder<'m> {
    /// Whether `ty` (under `Option`, `Box` and references) names a type with a schema of its
    /// own: a type declared in the sources or a Kubernetes type. controller-gen refers to
    /// those by reference instead of inlining them.
    /// Whether `ty` is a struct of the sources whose serde refuses fields it does not name
    /// (`#[serde(deny_unknown_fields)]`), also behind a `Box`.
    pub(super) fn denies_unknown(&self, site: Site<'m>, ty: &Ty) -> bool {
        let TyKind::Path {
            absolute,
            segments,
            args,
        } = &ty.kind
        else {
            return false;
        };
        let Some(last) = segments.last() else {
            return false;
        };
        if WRAPPERS.contains(&last.as_str()) {
            return args
                .first()
                .is_some_and(|inner| self.denies_unknown(site, inner));
        }
        match self.resolve(site, *absolute, segments) {
            Resolved::Local(id) => self.types.defs[id]
                .serde
                .as_ref()
                .is_ok_and(|s| s.container.deny_unknown_fields),
            _ => false,
        }
    }

    pub(super) fn is_named(&self, site: Site<'m>, ty: &Ty) -> bool {
        match &ty.kind {
            TyKind::Reference(inner) => self.is_named(site, inner),
            TyKind::Path {
                absolute,
                segments,
                args,
            } => {
                let Some(last) = segments.last() else {
                    return false;
                };
                if WRAPPERS.contains(&last.as_str()) {
                    return args.first().is_some_and(|inner| self.is_named(site, inner));
                }
                match self.resolve(site, *absolute, segments) {
                    Resolved::Local(_) => true,
                    Resolved::Ambiguous(_) => false,
                    Resolved::External(p) => {
                        known_types::is_known_path(&self.kubernetes_path(site.module, p))
                    }
                }
            }
            _ => false,
        }
    }

    /// Resolves a type path written in `site`'s module.
    pub(super) fn resolve(&self, site: Site<'m>, absolute: bool, segments: &[String]) -> Resolved {
        self.types
            .skeleton
            .resolve_path(site.module, absolute, segments)
    }

    /// A bare name the crate does not declare, as a glob import of a Kubernetes module
    /// makes it (`use k8s_openapi::api::core::v1::*;` then `TypedLocalObjectReference`),
    /// when the table has it there; otherwise the path as it is.
    fn kubernetes_path(&self, module: &[String], path: Vec<String>) -> Vec<String> {
        if let [name] = path.as_slice() {
            let through_glob = self
                .types
                .skeleton
                .through_external_globs(module, name)
                .find(|p| known_types::is_known_path(p));
            if let Some(found) = through_glob {
                return found;
            }
        }
        path
    }

    /// The schema of generic type `id` with the type arguments `args` written in `site`:
    /// its declaration with each type parameter replaced by its argument, which is named
    /// by a path that means the same in the declaration's module.
    fn instance_schema(
        &mut self,
        site: Site<'m>,
        id: usize,
        args: &'m [Ty],
        at: Loc,
    ) -> Option<JSONSchemaProps> {
        let def = &self.types.defs[id];
        // Arguments left out take their parameters' defaults.
        let given = args.len();
        let needed = def
            .param_defaults
            .iter()
            .rposition(Option::is_none)
            .map_or(0, |last| last + 1);
        if given < needed || given > def.params.len() {
            let wanted = match def.params.len() {
                0 => "no type arguments".to_string(),
                1 => "1 type argument".to_string(),
                n => format!("{n} type arguments"),
            };
            self.error(
                at,
                format!(
                    "`{}` takes {wanted} (<{}>{}), and {given} are given here",
                    def.name,
                    def.params.join(", "),
                    if needed < def.params.len() {
                        format!(", the last {} with defaults", def.params.len() - needed)
                    } else {
                        String::new()
                    }
                ),
            );
            return None;
        }
        // `Nest<T>` holding a `Nest<Vec<T>>`: each level a new instance, without end.
        if self.instances_on_stack(id) >= MAX_INSTANCE_DEPTH {
            self.error(
                at,
                format!(
                    "`{}` holds an instance of itself with other type arguments, {MAX_INSTANCE_DEPTH} levels deep: a schema of it would never end; break the cycle, for example with #[schema(schemaless, preserve_unknown_fields)] on the field",
                    def.name
                ),
            );
            return None;
        }
        let mut args: Vec<Ty> = args.iter().map(|a| self.qualified(site, a)).collect();
        // A default is written in the declaration, and may name the parameters before it.
        let own = self.site(id);
        for default in def.param_defaults[given..].iter().flatten() {
            let by_param: HashMap<&str, &Ty> =
                def.params.iter().map(String::as_str).zip(&args).collect();
            let default = substituted(default, &by_param);
            args.push(self.qualified(own, &default));
        }
        let key = args.iter().map(ty_key).collect::<Vec<_>>().join(", ");
        let by_param: HashMap<&str, &Ty> =
            def.params.iter().map(String::as_str).zip(&args).collect();
        let mut instance = def.clone();
        instance.generics = None;
        instance.params.clear();
        let fields = |fields: &mut Fields| match fields {
            Fields::Named(fields) | Fields::Unnamed(fields) => {
                for field in fields {
                    field.ty = substituted(&field.ty, &by_param);
                }
            }
            Fields::Unit => {}
        };
        match &mut instance.body {
            Body::Struct(f) => fields(f),
            Body::Enum(variants) => variants.iter_mut().for_each(|v| fields(&mut v.fields)),
            Body::Alias(ty) => *ty = substituted(ty, &by_param),
        }
        if let Some(Ok(ty)) = &mut instance.converts_through {
            *ty = substituted(ty, &by_param);
        }
        let instance: &'m TypeDef = self.types.instances.alloc(instance);
        self.def_schema(id, instance, key, at)
    }

    /// `ty` written in `site`, with every path made one that names the same type from
    /// any module of the crate (`crate::...` for the crate's types, the full path of
    /// another crate's).
    fn qualified(&self, site: Site<'m>, ty: &Ty) -> Ty {
        let kind = match &ty.kind {
            TyKind::Path {
                absolute,
                segments,
                args,
            } => {
                let args = args.iter().map(|a| self.qualified(site, a)).collect();
                let (absolute, segments) = match self.resolve(site, *absolute, segments) {
                    Resolved::Local(id) => {
                        let decl = &self.types.skeleton.decls[id];
                        let mut path = vec!["crate".to_string()];
                        path.extend(decl.module.iter().cloned());
                        path.push(decl.name.clone());
                        (false, path)
                    }
                    Resolved::External(path) => (true, self.kubernetes_path(site.module, path)),
                    Resolved::Ambiguous(_) => (*absolute, segments.clone()),
                };
                TyKind::Path {
                    absolute,
                    segments,
                    args,
                }
            }
            TyKind::Reference(inner) => TyKind::Reference(Box::new(self.qualified(site, inner))),
            TyKind::Array(elem, len) => TyKind::Array(Box::new(self.qualified(site, elem)), *len),
            TyKind::Slice(elem) => TyKind::Slice(Box::new(self.qualified(site, elem))),
            other => other.clone(),
        };
        Ty { kind, at: ty.at }
    }

    /// Maps a Rust type expression to a schema.
    pub(super) fn type_schema(&mut self, site: Site<'m>, ty: &'m Ty) -> Option<JSONSchemaProps> {
        match &ty.kind {
            TyKind::Path {
                absolute,
                segments,
                args,
            } => self.path_schema(site, ty.at, *absolute, segments, args),
            TyKind::Reference(inner) => self.type_schema(site, inner),
            TyKind::Array(elem, len) => {
                let mut schema = self.array_of(site, elem)?;
                // serde writes exactly N elements and reads no other number.
                let len = match len {
                    Ok(len) => *len,
                    Err(at) => {
                        self.error(
                            *at,
                            "the length of an array field must be an integer literal (operator-gen does not evaluate constants), so that the schema can require exactly that many items",
                        );
                        return None;
                    }
                };
                schema.min_items = Some(len);
                schema.max_items = Some(len);
                Some(schema)
            }
            TyKind::Slice(elem) => self.array_of(site, elem),
            TyKind::Unit => {
                self.error(
                    ty.at,
                    "`()` serializes as null, which has no structural schema; leave the field out or use a struct",
                );
                None
            }
            TyKind::Other(written) => {
                self.error(
                    ty.at,
                    format!(
                        "unsupported type `{written}`: use a struct, enum, String, integer, bool, Option, Vec or map"
                    ),
                );
                None
            }
        }
    }

    fn array_of(&mut self, site: Site<'m>, elem: &'m Ty) -> Option<JSONSchemaProps> {
        let items = self.element_schema(site, elem)?;
        Some(JSONSchemaProps {
            type_: Some("array".into()),
            items: Some(JSONSchemaPropsOrArray::Schema(Box::new(items))),
            ..Default::default()
        })
    }

    /// The schema of a list element or map value: as its type, and `nullable` when it is an
    /// `Option` (serde writes `null` for `None` there; the API server keeps nulls in lists
    /// and maps only where the schema allows them).
    fn element_schema(&mut self, site: Site<'m>, elem: &'m Ty) -> Option<JSONSchemaProps> {
        let mut schema = self.type_schema(site, elem)?;
        if super::is_optional(elem) {
            schema.nullable = Some(true);
        }
        Some(schema)
    }

    fn path_schema(
        &mut self,
        site: Site<'m>,
        at: Loc,
        absolute: bool,
        segments: &[String],
        args: &'m [Ty],
    ) -> Option<JSONSchemaProps> {
        let name = segments.last()?.as_str();
        let resolved = self.resolve(site, absolute, segments);
        let full_path = match resolved {
            Resolved::Local(id) if !args.is_empty() || !self.types.defs[id].params.is_empty() => {
                return self.instance_schema(site, id, args, at);
            }
            Resolved::Local(id) => return self.decl_schema(id, at),
            Resolved::Ambiguous(ids) => {
                let places: Vec<String> = ids
                    .iter()
                    .map(|i| {
                        let d = &self.types.skeleton.decls[*i];
                        format!(
                            "crate::{}",
                            d.module
                                .iter()
                                .cloned()
                                .chain([d.name.clone()])
                                .collect::<Vec<_>>()
                                .join("::")
                        )
                    })
                    .collect();
                self.error(
                    at,
                    format!(
                        "`{name}` is ambiguous: it could be {}; import the one you mean with `use`",
                        places.join(" or ")
                    ),
                );
                return None;
            }
            Resolved::External(p) => self.kubernetes_path(site.module, p),
        };
        let scalar = |t: &str, format: Option<&str>| {
            Some(JSONSchemaProps {
                type_: Some(t.into()),
                format: format.map(Into::into),
                ..Default::default()
            })
        };
        let std_integer =
            full_path.len() == 1 || full_path.first().is_some_and(|p| p == "std" || p == "core");
        match (name, args) {
            (int, []) if integer(int).is_some() => Some(integer_schema(integer(int)?)),
            (nonzero, []) if std_integer && non_zero_of(nonzero).is_some() => {
                Some(non_zero(non_zero_of(nonzero)?))
            }
            ("NonZero", [inner]) if std_integer && inner.ident().and_then(integer).is_some() => {
                Some(non_zero(integer(inner.ident()?)?))
            }
            ("i128" | "u128", []) => {
                self.error(
                    at,
                    format!("`{name}` values do not fit the API server's 64-bit integers; use i64 or u64, or a string (a newtype with #[serde(into = \"String\", try_from = \"String\")])"),
                );
                None
            }
            ("f32" | "f64", []) => {
                if self.options.allow_dangerous_types {
                    scalar("number", None)
                } else {
                    self.error(
                        at,
                        format!(
                            "`{name}` fields are discouraged in Kubernetes APIs (floats do not round-trip across languages); use an integer or a Quantity, or allow them with `allow-dangerous-types = true` under [package.metadata.operator-gen] in the crate's Cargo.toml (operator-gen: --allow-dangerous-types)"
                        ),
                    );
                    None
                }
            }
            ("bool", []) => scalar("boolean", None),
            // (Not `OsString`: serde writes it as an enum of its platform's bytes.)
            ("String" | "str" | "PathBuf" | "Path", []) => scalar("string", None),
            // One Unicode scalar value: the API server counts lengths in code points.
            ("char", []) => Some(JSONSchemaProps {
                min_length: Some(1),
                max_length: Some(1),
                ..scalar("string", None)?
            }),
            (wrapper, [inner]) if WRAPPERS.contains(&wrapper) => self.type_schema(site, inner),
            // serde_json writes a `Vec<u8>` as a list of numbers (Go's `[]byte` is base64:
            // that is `k8s_openapi::ByteString`).
            (
                "Vec" | "VecDeque" | "BTreeSet" | "HashSet" | "BinaryHeap" | "LinkedList"
                | "IndexSet",
                [inner],
            )
            // A hash set or map may name its hasher; serde writes it the same.
            | ("HashSet" | "IndexSet", [inner, _]) => self.array_of(site, inner),
            ("BTreeMap" | "HashMap" | "IndexMap", [key, value])
            | ("HashMap" | "IndexMap", [key, value, _]) => {
                let key_schema = self.type_schema(site, key)?;
                let keys = match key_schema.type_.as_deref() {
                    Some("string") => key_rule(&key_schema),
                    // serde_json writes integer and bool keys as strings, and reads them
                    // back from the strings it writes.
                    Some("integer") => integer_key_rule(&key_schema).map(Some),
                    Some("boolean") => Ok(Some(CelRule {
                        rule: format!("{KEY_RULE}k in ['true', 'false'])"),
                        message: Some(format!("{KEY_MESSAGE}be true or false")),
                        ..Default::default()
                    })),
                    _ => {
                        self.error(
                            key.at,
                            "map keys must be strings on the wire: JSON object keys are (String, a string enum or newtype, an integer or bool, which serde_json writes as strings)",
                        );
                        return None;
                    }
                };
                let keys = match keys {
                    Ok(rule) => rule,
                    Err(why) => {
                        self.error(key.at, why);
                        return None;
                    }
                };
                let value = self.element_schema(site, value)?;
                let mut map = JSONSchemaProps {
                    type_: Some("object".into()),
                    additional_properties: Some(JSONSchemaPropsOrBool::Schema(Box::new(value))),
                    ..Default::default()
                };
                if let Some(rule) = keys {
                    // Placed at the map: its cost is the map's to bound.
                    push_rule_from(&mut map, &rule, &mut self.rule_places, at);
                }
                Some(map)
            }
            // std's Duration is `{"secs": u64, "nanos": u32}` to serde (kube::core::Duration
            // is Go's "1h30m" form). serde carries nanos of a second or more into secs; the
            // schema keeps them below a second, as serde writes them.
            ("Duration", [])
                if matches!(full_path.as_slice(), [root, time, _]
                    if (root == "std" || root == "core") && time == "time") =>
            {
                let mut nanos = integer_schema(Integer {
                    bits: 32,
                    signed: false,
                    word: false,
                });
                nanos.maximum = Some(999_999_999.0);
                let properties = [
                    ("nanos".to_string(), nanos),
                    (
                        "secs".to_string(),
                        integer_schema(Integer {
                            bits: 64,
                            signed: false,
                            word: false,
                        }),
                    ),
                ];
                Some(JSONSchemaProps {
                    type_: Some("object".into()),
                    properties: Some(properties.into_iter().collect()),
                    required: Some(vec!["nanos".into(), "secs".into()]),
                    ..Default::default()
                })
            }
            // std's network addresses are strings in their `Display` form to serde.
            (name, [])
                if matches!(full_path.as_slice(), [root, net, _]
                    if (root == "std" || root == "core") && net == "net")
                    && net::schema(name).is_some() =>
            {
                net::schema(name)
            }
            ("Ipv4Net" | "Ipv6Net" | "IpNet", [])
                if full_path.first().is_some_and(|p| p == "ipnet") =>
            {
                net::network_schema(name)
            }
            // semver's Version, as it writes and reads it: SemVer 2.0 (no leading zeros in
            // the numbers or in numeric pre-release identifiers).
            ("Version", []) if full_path == ["semver", "Version"] => Some(semver()),
            // uuid writes the hyphenated form in lower case, and reads it in either case
            // (also the simple, braced and URN forms, which the schema leaves out).
            ("Uuid", []) if full_path == ["uuid", "Uuid"] => Some(JSONSchemaProps {
                type_: Some("string".into()),
                pattern: Some(
                    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
                        .into(),
                ),
                max_length: Some(36),
                ..Default::default()
            }),
            // chrono's DateTime and jiff's Timestamp are RFC 3339 strings to serde, as
            // metav1.Time is.
            ("DateTime", [_]) if full_path.first().is_some_and(|p| p == "chrono") => {
                Some(rfc3339())
            }
            ("Timestamp", []) if full_path.iter().any(|p| p == "jiff") => Some(rfc3339()),
            // time's OffsetDateTime by its own serde impl (a list of integers, or time's own
            // string format) and url's Url: no schema, and the way through (time's is its
            // `with = "time::serde::rfc3339"`, see wire.rs).
            ("OffsetDateTime", []) if external::is_offset_date_time(&full_path) => {
                self.error(at, external::offset_date_time_misfit());
                None
            }
            // semver's requirements, as semver 1.x reads them.
            ("VersionReq", []) if full_path == ["semver", "VersionReq"] => {
                Some(external::version_req())
            }
            ("Url", []) if full_path == ["url", "Url"] => {
                self.error(at, external::url_misfit());
                None
            }
            // chrono's dates and times without a time zone, as serde writes them (ISO 8601):
            // `2024-02-29`, `2024-02-29T13:05:00.5`, `13:05:00.5`.
            ("NaiveDate" | "NaiveDateTime" | "NaiveTime", [])
                if full_path.first().is_some_and(|p| p == "chrono") =>
            {
                Some(naive(name))
            }
            // serde_json's map of any JSON: an object whose fields the API server keeps.
            ("Map", [_, _]) if full_path.first().is_some_and(|p| p == "serde_json") => {
                Some(JSONSchemaProps {
                    type_: Some("object".into()),
                    x_kubernetes_preserve_unknown_fields: Some(true),
                    ..Default::default()
                })
            }
            ("Value", [])
                if full_path.first().is_some_and(|p| p == "serde_json") || full_path.len() == 1 =>
            {
                Some(JSONSchemaProps {
                    x_kubernetes_preserve_unknown_fields: Some(true),
                    ..Default::default()
                })
            }
            _ => {
                if let Some(schema) = known_types::schema_for_path(&full_path, self.options().embedded_object_meta) {
                    return Some(schema);
                }
                let message = if known_types::is_kubernetes_path(&full_path) {
                    let suggestions = known_types::suggestions(&full_path);
                    let hint = if suggestions.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (did you mean {}?)",
                            suggestions
                                .iter()
                                .map(|s| format!("`{s}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    let message = format!(
                        "`{}` is not among the Kubernetes types operator-gen knows{hint}; operator-gen knows the types of k8s-openapi's api, apimachinery, apiextensions_apiserver and kube_aggregator modules by their full path; for anything else use `serde_json::Value` with #[schema(preserve_unknown_fields)]",
                        full_path.join("::"),
                    );
                    // Go's metav1.Duration has no k8s-openapi type; kube has one.
                    if full_path.ends_with(&["meta".into(), "v1".into(), "Duration".into()]) {
                        self.error(
                            at,
                            Misfit::from(message).with_help(
                                "k8s-openapi has no metav1.Duration: use `kube::core::Duration`, which reads and writes Go's form (\"1h30m\")",
                            ),
                        );
                        return None;
                    }
                    message
                } else if let [krate, _, ..] = full_path.as_slice()
                    && matches!(krate.as_str(), "std" | "core" | "alloc")
                {
                    format!(
                        "cannot generate a schema for `{}`: operator-gen has no schema for this standard type; give the field #[schema(schemaless)] with markers that say what goes over the wire (for example #[validation(type = \"string\")] for what serde writes as a string), or use a type operator-gen knows",
                        full_path.join("::")
                    )
                } else if let [krate, _, ..] = full_path.as_slice()
                    && !matches!(krate.as_str(), "crate" | "self" | "super")
                {
                    // A type of another crate: its serde impl is that crate's, unread here.
                    format!(
                        "cannot generate a schema for `{}`: operator-gen reads this crate's sources, not `{krate}`'s, and does not know how it serializes; give the field #[schema(schemaless)] with markers that say what goes over the wire (for example #[validation(type = \"string\", format = \"...\")]), or use a type operator-gen knows (if `{krate}` is a module of this crate, add its file to the generator's paths)",
                        full_path.join("::")
                    )
                } else {
                    format!(
                        "cannot generate a schema for `{}`: it is not declared in the scanned sources and is not a supported Kubernetes or standard type; add the file that declares it to the generator's paths",
                        full_path.join("::")
                    )
                };
                self.error(at, message);
                None
            }
        }
    }
}

/// An instant as chrono and jiff write it: RFC 3339, a `T`, at most nine digits of a second
/// and an offset within a day. The API server's `date-time` alone also admits what they do
/// not read (ten digits, a comma, `+24:00`); the pattern also leaves out what they write
/// but the API server refuses whatever the schema (years past 9999 or before 0, a leap
/// second).
fn rfc3339() -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("string".into()),
        format: Some("date-time".into()),
        pattern: Some(
            "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
                .into(),
        ),
        ..Default::default()
    }
}

/// semver's `Version`: `1.2.3`, `1.2.3-rc.1`, `1.2.3+build.5`, with what its parser refuses
/// left out (leading zeros, numbers above `u64::MAX`, empty identifiers, blanks).
fn semver() -> JSONSchemaProps {
    let number = super::net::decimal_up_to(u64::MAX);
    const PRE: &str = "(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)";
    const BUILD: &str = "[0-9A-Za-z-]+";
    JSONSchemaProps {
        type_: Some("string".into()),
        pattern: Some(format!(
            "^{number}\\.{number}\\.{number}(-{PRE}(\\.{PRE})*)?(\\+{BUILD}(\\.{BUILD})*)?$"
        )),
        ..Default::default()
    }
}

/// A chrono date, date and time, or time of day without a time zone: what its serde
/// writes (years of four digits, a second of at most nine decimals, no offset; a leap
/// second as second 60). The date's
/// pattern holds the calendar itself (month lengths, the 29th of February in leap years
/// only), since the API server's `date-time` format asks for an offset: over years 0 to
/// 9999, it matches exactly the `YYYY-MM-DD` strings chrono reads (checked on all 10^8 of
/// them, and on every date chrono writes).
fn naive(name: &str) -> JSONSchemaProps {
    const DATE: &str = external::NAIVE_DATE;
    // A leap second is written as second 60, of any minute.
    const TIME: &str = "([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]{1,9})?";
    let (pattern, format) = match name {
        "NaiveDate" => (DATE.to_string(), Some("date")),
        "NaiveDateTime" => (format!("{DATE}T{TIME}"), None),
        _ => (TIME.to_string(), None),
    };
    JSONSchemaProps {
        type_: Some("string".into()),
        format: format.map(Into::into),
        pattern: Some(format!("^{pattern}$")),
        ..Default::default()
    }
}

/// The CEL rule that holds a map's keys to what its key type reads (an enum's names, one
/// character, a newtype's pattern or lengths), or `None` for any string. A structural
/// schema cannot constrain a map's keys (there is no `propertyNames`), so without the rule
/// the API server would admit a key the operator cannot read, and one such object fails
/// every typed list of the kind. What CEL cannot check of a key (a format, a key type's
/// own rules) is an error.
fn key_rule(key: &JSONSchemaProps) -> Result<Option<CelRule>, Misfit> {
    if let Some(format) = &key.format {
        return Err(Misfit::from(format!(
            "the keys of this map have the format `{format}`, which the API server cannot check on a map's keys (a structural schema has no `propertyNames`), so it would admit keys the operator cannot read"
        ))
        .with_help("use String keys"));
    }
    if key.x_kubernetes_validations.is_some() {
        return Err(Misfit::from("the key type of this map has CEL rules of its own, which the API server cannot apply to a map's keys, so it would admit keys the operator cannot read").with_help("use String keys, or put the rules on the map (`self.all(k, ...)`)"));
    }
    let mut checks = Vec::new();
    let mut says = Vec::new();
    if let Some(values) = &key.enum_ {
        let names: Vec<&str> = values.iter().filter_map(|v| v.0.as_str()).collect();
        checks.push(format!(
            "k in [{}]",
            names
                .iter()
                .map(|n| cel_string(n))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        says.push(format!("be one of {}", names.join(", ")));
    }
    match (key.min_length, key.max_length) {
        (Some(min), Some(max)) if min == max => {
            checks.push(format!("size(k) == {min}"));
            says.push(if min == 1 {
                "be one character".to_string()
            } else {
                format!("be {min} characters long")
            });
        }
        (min, max) => {
            if let Some(min) = min {
                checks.push(format!("size(k) >= {min}"));
                says.push(format!("have at least {min} characters"));
            }
            if let Some(max) = max {
                checks.push(format!("size(k) <= {max}"));
                says.push(format!("have at most {max} characters"));
            }
        }
    }
    if let Some(pattern) = &key.pattern {
        checks.push(format!("k.matches({})", cel_string(pattern)));
        says.push(format!("match {pattern}"));
    }
    if checks.is_empty() {
        return Ok(None);
    }
    Ok(Some(CelRule {
        rule: format!("{KEY_RULE}{})", checks.join(" && ")),
        message: Some(format!("{KEY_MESSAGE}{}", says.join(" and "))),
        ..Default::default()
    }))
}

/// The key rule of a map keyed by an integer type: serde_json writes the key as the decimal
/// number in a string and reads back only that form (a JSON number: no `+`, no leading
/// zero) within the type's bounds. CEL's `int()` and `uint()` fail on a number out of
/// 64-bit range, which refuses the object as the type would.
fn integer_key_rule(key: &JSONSchemaProps) -> Result<CelRule, Misfit> {
    if key.x_kubernetes_validations.is_some() || key.enum_.is_some() {
        return Err(Misfit::from("the key type of this map takes only some integers (an enum, or CEL rules of its own), which the API server cannot check on a map's keys").with_help("use a plain integer type as the key"));
    }
    let (min, max) = match (key.minimum, key.maximum, key.format.as_deref()) {
        (Some(min), Some(max), _) => (Some(min as i128), Some(max as i128)),
        (Some(min), None, _) => (Some(min as i128), Some(u64::MAX as i128)),
        (None, None, Some("int32")) => (Some(i32::MIN as i128), Some(i32::MAX as i128)),
        (None, max, _) => (None, max.map(|m| m as i128)),
    };
    let unsigned = min.is_some_and(|m| m >= 0);
    let (pattern, mut checks) = if unsigned {
        ("^(0|[1-9][0-9]*)$", Vec::new())
    } else {
        ("^(0|-?[1-9][0-9]*)$", Vec::new())
    };
    checks.push(format!("k.matches({})", cel_string(pattern)));
    if unsigned {
        let min = min.unwrap_or(0);
        if min > 0 {
            checks.push(format!("uint(k) >= {min}u"));
        }
        checks.push(format!("uint(k) <= {}u", max.unwrap_or(u64::MAX as i128)));
    } else {
        if let Some(min) = min.filter(|m| *m > i64::MIN as i128) {
            checks.push(format!("int(k) >= {min}"));
        }
        checks.push(format!("int(k) <= {}", max.unwrap_or(i64::MAX as i128)));
    }
    let range = match (min, max) {
        (Some(min), Some(max)) => format!(" from {min} to {max}"),
        _ => " of 64 bits".to_string(),
    };
    Ok(CelRule {
        rule: format!("{KEY_RULE}{})", checks.join(" && ")),
        message: Some(format!(
            "{KEY_MESSAGE}be integers{range}, in decimal without leading zeros"
        )),
        ..Default::default()
    })
}

/// How a key rule begins, and its message.
const KEY_RULE: &str = "self.all(k, ";
const KEY_MESSAGE: &str = "keys must ";

/// Whether `rule` is one [`key_rule`] wrote.
pub(super) fn is_key_rule(rule: &crate::api::apiextensions::v1::ValidationRule) -> bool {
    rule.rule.starts_with(KEY_RULE)
        && rule
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with(KEY_MESSAGE))
}

/// A Rust integer type: its name's bits and whether it is signed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Integer {
    bits: u32,
    signed: bool,
    /// `isize`: the platform's word, as Go's `int` is, and written as controller-gen writes
    /// an `int` (a bare `type: integer`, no format), so a kubebuilder API moved over keeps
    /// its CRD byte for byte. On the 64-bit targets operators run on it holds what the API
    /// server stores (int64), so no format is needed to say so.
    word: bool,
}

/// The integer type named `name` (`usize` and `isize` as the 64-bit targets operators run on).
pub(super) fn integer(name: &str) -> Option<Integer> {
    let (signed, bits) = match name.split_at_checked(1)? {
        ("i", bits) => (true, bits),
        ("u", bits) => (false, bits),
        _ => return None,
    };
    let word = name == "isize";
    let bits = match bits {
        "8" => 8,
        "16" => 16,
        "32" => 32,
        "64" | "size" => 64,
        _ => return None,
    };
    Some(Integer { bits, signed, word })
}

/// The schema of an integer type: bounded to what the type holds, so that every value the
/// API server admits deserializes (controller-gen writes Go's int8, int16 and unsigned types
/// without bounds; this is a deliberate difference). The format names the signed OpenAPI
/// integer that holds every value (`u32` needs `int64`), and `i32` and `i64` are as
/// controller-gen writes Go's int32 and int64: their format says their range. `u64` is not
/// negative; above i64::MAX the API server, which stores integers as int64, refuses a value
/// whatever the schema says.
pub(super) fn integer_schema(int: Integer) -> JSONSchemaProps {
    let (min, max): (Option<i64>, Option<i64>) = match (int.bits, int.signed) {
        (32 | 64, true) => (None, None),
        (64, false) => (Some(0), None),
        (bits, true) => (Some(-(1 << (bits - 1))), Some((1 << (bits - 1)) - 1)),
        (bits, false) => (Some(0), Some((1 << bits) - 1)),
    };
    let format = match (int.bits, int.signed) {
        _ if int.word => None,
        (32, true) => Some("int32"),
        (32, false) | (64, _) => Some("int64"),
        _ => None,
    };
    JSONSchemaProps {
        type_: Some("integer".into()),
        format: format.map(Into::into),
        minimum: min.map(|n| n as f64),
        maximum: max.map(|n| n as f64),
        ..Default::default()
    }
}

/// The integer of `NonZeroU8`, `NonZeroI64`, ...
fn non_zero_of(name: &str) -> Option<Integer> {
    integer(&name.strip_prefix("NonZero")?.to_ascii_lowercase())
}

/// `NonZeroU8`, `NonZero<i32>`, ...: the integer's bounds, without zero.
fn non_zero(int: Integer) -> JSONSchemaProps {
    let mut schema = integer_schema(int);
    if int.signed {
        schema.x_kubernetes_validations =
            Some(vec![crate::api::apiextensions::v1::ValidationRule {
                rule: "self != 0".into(),
                message: Some("must not be 0".into()),
                ..Default::default()
            }]);
    } else {
        schema.minimum = Some(1.0);
    }
    schema
}

/// How many instances of one generic type may be built inside each other: more is a type
/// that holds itself with growing arguments.
const MAX_INSTANCE_DEPTH: usize = 8;

/// `ty` with each type parameter of `by_param` replaced by its argument.
fn substituted(ty: &Ty, by_param: &HashMap<&str, &Ty>) -> Ty {
    let kind = match &ty.kind {
        TyKind::Path {
            absolute: false,
            segments,
            args,
        } if args.is_empty() && segments.len() == 1 => {
            if let Some(arg) = by_param.get(segments[0].as_str()) {
                return (*arg).clone();
            }
            ty.kind.clone()
        }
        TyKind::Path {
            absolute,
            segments,
            args,
        } => TyKind::Path {
            absolute: *absolute,
            segments: segments.clone(),
            args: args.iter().map(|a| substituted(a, by_param)).collect(),
        },
        TyKind::Reference(inner) => TyKind::Reference(Box::new(substituted(inner, by_param))),
        TyKind::Array(elem, len) => TyKind::Array(Box::new(substituted(elem, by_param)), *len),
        TyKind::Slice(elem) => TyKind::Slice(Box::new(substituted(elem, by_param))),
        other => other.clone(),
    };
    Ty { kind, at: ty.at }
}

/// `ty` as a key: its paths and arguments, as written.
fn ty_key(ty: &Ty) -> String {
    match &ty.kind {
        TyKind::Path { segments, args, .. } if args.is_empty() => segments.join("::"),
        TyKind::Path { segments, args, .. } => format!(
            "{}<{}>",
            segments.join("::"),
            args.iter().map(ty_key).collect::<Vec<_>>().join(", ")
        ),
        TyKind::Reference(inner) => format!("&{}", ty_key(inner)),
        TyKind::Array(elem, len) => format!("[{}; {len:?}]", ty_key(elem)),
        TyKind::Slice(elem) => format!("[{}]", ty_key(elem)),
        TyKind::Unit => "()".into(),
        TyKind::Other(written) => written.clone(),
    }
}
