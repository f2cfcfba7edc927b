//! Type-checking a parsed rule against the schema it sits on, as the API server's CEL
//! environment would: `self` and `oldSelf` have the schema's type (objects with their
//! properties, lists, maps, strings with their formats, ...), and the functions are CEL's
//! standard library with the Kubernetes libraries and extensions.
//!
//! The checker reports only what the API server certainly refuses: a name that is declared
//! nowhere, a field the object does not have, an operator or a method on types it has no
//! overload for, a rule that is not a boolean. Where it cannot be sure (a value of unknown
//! type, a function of a library it does not model) it says nothing.

use std::collections::HashMap;
use std::fmt;

use super::parse::{Expr, Kind, Op};
use crate::api::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

/// A CEL type, with objects and their fields read from the schema as needed.
#[derive(Debug, Clone)]
pub enum Ty<'s> {
    /// `int`
    Int,
    /// `uint`
    Uint,
    /// `double`
    Double,
    /// `bool`
    Bool,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `null_type`
    Null,
    /// `google.protobuf.Duration`
    Duration,
    /// `google.protobuf.Timestamp`
    Timestamp,
    /// `list(T)`
    List(Box<Ty<'s>>),
    /// `map(K, V)`
    Map(Box<Ty<'s>>, Box<Ty<'s>>),
    /// An object of the schema, its fields its properties.
    Object(&'s JSONSchemaProps),
    /// `metadata` of an embedded resource or the root: only `name` and `generateName`.
    Metadata,
    /// `optional_type(T)`
    Opt(Box<Ty<'s>>),
    /// A type of a Kubernetes library (`Quantity`, `URL`, `IP`, `CIDR`, `Semver`, ...).
    Lib(&'static str),
    /// A type as a value (`type(x)`).
    Type,
    /// Not known here: anything goes.
    Dyn,
}

impl fmt::Display for Ty<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Int => f.write_str("int"),
            Ty::Uint => f.write_str("uint"),
            Ty::Double => f.write_str("double"),
            Ty::Bool => f.write_str("bool"),
            Ty::String => f.write_str("string"),
            Ty::Bytes => f.write_str("bytes"),
            Ty::Null => f.write_str("null"),
            Ty::Duration => f.write_str("duration"),
            Ty::Timestamp => f.write_str("timestamp"),
            Ty::List(t) => write!(f, "list({t})"),
            Ty::Map(k, v) => write!(f, "map({k}, {v})"),
            Ty::Object(_) => f.write_str("object"),
            Ty::Metadata => f.write_str("metadata"),
            Ty::Opt(t) => write!(f, "optional({t})"),
            Ty::Lib(name) => f.write_str(name),
            Ty::Type => f.write_str("type"),
            Ty::Dyn => f.write_str("dyn"),
        }
    }
}

impl<'s> Ty<'s> {
    /// The type the API server gives a value of `schema`.
    pub fn of(schema: &'s JSONSchemaProps) -> Ty<'s> {
        if schema.x_kubernetes_int_or_string == Some(true) {
            return Ty::Dyn;
        }
        match schema.type_.as_deref() {
            Some("integer") => Ty::Int,
            Some("number") => Ty::Double,
            Some("boolean") => Ty::Bool,
            Some("string") => match schema.format.as_deref() {
                Some("byte") => Ty::Bytes,
                Some("duration") => Ty::Duration,
                Some("date") | Some("date-time") => Ty::Timestamp,
                _ => Ty::String,
            },
            Some("array") => Ty::List(Box::new(match &schema.items {
                Some(JSONSchemaPropsOrArray::Schema(items)) => Ty::of(items),
                _ => Ty::Dyn,
            })),
            Some("object") => match &schema.additional_properties {
                Some(JSONSchemaPropsOrBool::Schema(values))
                    if schema.properties.as_ref().is_none_or(|p| p.is_empty()) =>
                {
                    Ty::Map(Box::new(Ty::String), Box::new(Ty::of(values)))
                }
                // Preserving unknown fields or not, an object is its declared fields: the
                // API server refuses `self.config.anything` on `{type: object,
                // x-kubernetes-preserve-unknown-fields: true}` (undefined field).
                _ => Ty::Object(schema),
            },
            _ => Ty::Dyn,
        }
    }

    /// The type with its article, for messages: "an int", "a string".
    pub fn article(&self) -> String {
        let name = self.to_string();
        let an = name.starts_with(['a', 'e', 'i', 'o', 'u']);
        format!("{} {name}", if an { "an" } else { "a" })
    }

    fn is_dyn(&self) -> bool {
        matches!(self, Ty::Dyn)
    }

    fn numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Uint | Ty::Double)
    }

    /// The family of a scalar type, for telling types that can never meet apart.
    fn scalar(&self) -> Option<&'static str> {
        Some(match self {
            Ty::Int | Ty::Uint | Ty::Double => "number",
            Ty::Bool => "bool",
            Ty::String => "string",
            Ty::Bytes => "bytes",
            Ty::Duration => "duration",
            Ty::Timestamp => "timestamp",
            _ => return None,
        })
    }

    fn same_kind(&self, other: &Ty<'_>) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// A type error: what, and the byte offset of the expression it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeError {
    /// What is wrong.
    pub message: String,
    /// The byte offset in the rule.
    pub at: usize,
}

/// How a property name is spelled in CEL: names that are not identifiers, or are reserved,
/// are escaped (`__dash__`, `__dot__`, `__slash__`, `__underscores__`, `__in__`, ...).
pub fn property_of_cel(name: &str) -> String {
    if let Some(word) = name.strip_prefix("__").and_then(|n| n.strip_suffix("__"))
        && super::parse::escaped_word(word)
    {
        return word.to_string();
    }
    name.replace("__underscores__", "\u{0}")
        .replace("__dash__", "-")
        .replace("__dot__", ".")
        .replace("__slash__", "/")
        .replace('\u{0}', "__")
}

/// Global functions and namespaces the API server's environment declares.
const GLOBALS: &[&str] = &[
    "size",
    "has",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "dyn",
    "type",
    "duration",
    "timestamp",
    "matches",
    "quantity",
    "isQuantity",
    "url",
    "isURL",
    "ip",
    "isIP",
    "cidr",
    "isCIDR",
    "semver",
    "isSemver",
];

/// Namespaces of qualified functions (`optional.of`, `sets.contains`, ...): modelled or
/// left open. (`cel.bind` is not among them: the API server's CRD environment refuses it,
/// measured on Kubernetes 1.36.)
const NAMESPACES: &[&str] = &[
    "optional", "sets", "strings", "math", "base64", "format", "ip", "lists",
];

/// Every method name of the standard library and the Kubernetes libraries.
const METHODS: &[&str] = &[
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getFullYear",
    "getHours",
    "getMilliseconds",
    "getMinutes",
    "getMonth",
    "getSeconds",
    "charAt",
    "indexOf",
    "lastIndexOf",
    "lowerAscii",
    "upperAscii",
    "replace",
    "split",
    "substring",
    "trim",
    "join",
    "format",
    "reverse",
    "quote",
    "isSorted",
    "sum",
    "min",
    "max",
    "find",
    "findAll",
    "getScheme",
    "getHost",
    "getHostname",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "sign",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "asInteger",
    "asApproximateFloat",
    "isInteger",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "containsIP",
    "containsCIDR",
    "prefixLength",
    "masked",
    "major",
    "minor",
    "patch",
    "hasValue",
    "value",
    "orValue",
    "or",
    "validate",
    "transformList",
    "transformMap",
    "transformMapEntry",
    "distinct",
    "flatten",
    "slice",
    "sort",
    "sortBy",
    "first",
    "last",
    "ip",
    "string",
];

/// Types a parsed rule against the schema node it sits on: the variables (`self`, `oldSelf`)
/// and every node's type, which the cost estimate reads.
#[derive(Debug)]
pub struct Checker<'s> {
    vars: HashMap<String, Ty<'s>>,
    /// The type found for each node, by its address in the tree (for the cost estimate).
    pub types: HashMap<usize, Ty<'s>>,
}

/// The key of a node in [`Checker::types`].
pub fn node_key(e: &Expr) -> usize {
    e as *const Expr as usize
}

type R<'s> = Result<Ty<'s>, TypeError>;

fn err<'s>(at: usize, message: impl Into<String>) -> R<'s> {
    Err(TypeError {
        message: message.into(),
        at,
    })
}

impl<'s> Checker<'s> {
    /// A checker with `self` of type `this` and `oldSelf` (optional when `optional_old_self`).
    pub fn new(this: Ty<'s>, optional_old_self: bool) -> Self {
        let old = if optional_old_self {
            Ty::Opt(Box::new(this.clone()))
        } else {
            this.clone()
        };
        Checker {
            vars: HashMap::from([("self".to_string(), this), ("oldSelf".to_string(), old)]),
            types: HashMap::new(),
        }
    }

    /// The type of `e`, or why it has none.
    pub fn check(&mut self, e: &Expr) -> R<'s> {
        let t = self.check_node(e)?;
        self.types.insert(node_key(e), t.clone());
        Ok(t)
    }

    fn check_node(&mut self, e: &Expr) -> R<'s> {
        match &e.kind {
            Kind::Int(_) => Ok(Ty::Int),
            Kind::Uint(_) => Ok(Ty::Uint),
            Kind::Double(_) => Ok(Ty::Double),
            Kind::String(_) => Ok(Ty::String),
            Kind::Bytes(_) => Ok(Ty::Bytes),
            Kind::Bool(_) => Ok(Ty::Bool),
            Kind::Null => Ok(Ty::Null),
            Kind::Ident(name) => match self.vars.get(name) {
                Some(t) => Ok(t.clone()),
                None => match name.as_str() {
                    "int" | "uint" | "double" | "string" | "bytes" | "bool" | "list" | "map"
                    | "null_type" | "type" => Ok(Ty::Type),
                    _ => err(
                        e.at,
                        format!(
                            "undeclared reference to `{name}`: a rule sees `self` and `oldSelf` (and the variables of its macros)"
                        ),
                    ),
                },
            },
            Kind::Select {
                operand,
                field,
                optional,
            } => {
                let t = self.check(operand)?;
                let out = self.select(&t, field, e.at)?;
                Ok(if *optional && !matches!(out, Ty::Opt(_)) {
                    Ty::Opt(Box::new(out))
                } else {
                    out
                })
            }
            Kind::Index {
                operand,
                index,
                optional,
            } => {
                let t = self.check(operand)?;
                let i = self.check(index)?;
                let out = self.index(&t, &i, e.at)?;
                Ok(if *optional {
                    Ty::Opt(Box::new(out))
                } else {
                    out
                })
            }
            Kind::List(items) => {
                let mut elem: Option<Ty<'s>> = None;
                for (item, optional) in items {
                    let mut t = self.check(item)?;
                    if *optional && let Ty::Opt(inner) = t {
                        t = *inner;
                    }
                    elem = Some(match elem {
                        None => t,
                        Some(prev) if prev.same_kind(&t) => prev,
                        Some(_) => Ty::Dyn,
                    });
                }
                Ok(Ty::List(Box::new(elem.unwrap_or(Ty::Dyn))))
            }
            Kind::Map(entries) => {
                let mut kt: Option<Ty<'s>> = None;
                let mut vt: Option<Ty<'s>> = None;
                for (k, v, _) in entries {
                    let (k, v) = (self.check(k)?, self.check(v)?);
                    kt = Some(kt.map_or(k.clone(), |p| if p.same_kind(&k) { p } else { Ty::Dyn }));
                    vt = Some(vt.map_or(v.clone(), |p| if p.same_kind(&v) { p } else { Ty::Dyn }));
                }
                Ok(Ty::Map(
                    Box::new(kt.unwrap_or(Ty::Dyn)),
                    Box::new(vt.unwrap_or(Ty::Dyn)),
                ))
            }
            Kind::Message { name, .. } => err(
                e.at,
                format!("`{name}{{...}}` builds a message, and a CRD rule has no message types"),
            ),
            Kind::Unary(op, operand) => {
                let t = self.check(operand)?;
                match (op, &t) {
                    (_, Ty::Dyn) => Ok(Ty::Dyn),
                    (Op::Not, Ty::Bool) => Ok(Ty::Bool),
                    (Op::Neg, Ty::Int | Ty::Double | Ty::Duration) => Ok(t),
                    _ => err(e.at, format!("no `{op}` for {t_a}", t_a = t.article())),
                }
            }
            Kind::Binary(op, l, r) => {
                let (lt, rt) = (self.check(l)?, self.check(r)?);
                self.binary(*op, &lt, &rt, e.at)
            }
            Kind::Cond(c, a, b) => {
                let ct = self.check(c)?;
                if !matches!(ct, Ty::Bool | Ty::Dyn) {
                    return err(
                        c.at,
                        format!(
                            "the condition of `? :` is {ct_a}, not a bool",
                            ct_a = ct.article()
                        ),
                    );
                }
                let (at, bt) = (self.check(a)?, self.check(b)?);
                match (at.scalar(), bt.scalar()) {
                    (Some(x), Some(y)) if x != y => err(
                        e.at,
                        format!("the two branches of `? :` have different types ({at} and {bt})"),
                    ),
                    _ if at.same_kind(&bt) => Ok(at),
                    _ => Ok(Ty::Dyn),
                }
            }
            Kind::Call { target, name, args } => self.call(target.as_deref(), name, args, e.at),
        }
    }

    fn select(&self, t: &Ty<'s>, field: &str, at: usize) -> R<'s> {
        match t {
            Ty::Dyn => Ok(Ty::Dyn),
            Ty::Opt(inner) => Ok(Ty::Opt(Box::new(self.select(inner, field, at)?))),
            Ty::Map(k, v) if matches!(**k, Ty::String | Ty::Dyn) => Ok((**v).clone()),
            Ty::Metadata => match field {
                "name" | "generateName" => Ok(Ty::String),
                _ => err(
                    at,
                    format!(
                        "a rule sees only `name` and `generateName` of metadata, not `{field}`"
                    ),
                ),
            },
            Ty::Object(schema) => {
                let name = property_of_cel(field);
                let props = schema.properties.as_ref();
                match props.and_then(|p| p.get(&name)) {
                    Some(prop) => {
                        // The root of a kind (and an embedded resource) shows only
                        // metadata's name and generateName; there `metadata` sits beside
                        // `apiVersion` and `kind`.
                        let root = props.is_some_and(|p| {
                            p.contains_key("apiVersion") && p.contains_key("kind")
                        });
                        if name == "metadata" && root {
                            return Ok(Ty::Metadata);
                        }
                        Ok(Ty::of(prop))
                    }
                    None if schema.x_kubernetes_embedded_resource == Some(true)
                        && ["apiVersion", "kind"].contains(&name.as_str()) =>
                    {
                        Ok(Ty::String)
                    }
                    None if schema.x_kubernetes_embedded_resource == Some(true)
                        && name == "metadata" =>
                    {
                        Ok(Ty::Metadata)
                    }
                    None => {
                        let mut known: Vec<&str> = props
                            .into_iter()
                            .flatten()
                            .map(|(k, _)| k.as_str())
                            .collect();
                        known.sort_unstable();
                        err(
                            at,
                            if known.is_empty() {
                                format!("no field `{field}`: this object has no fields")
                            } else {
                                format!(
                                    "no field `{field}` here (its fields: {}); fields are JSON names",
                                    known.join(", ")
                                )
                            },
                        )
                    }
                }
            }
            Ty::Lib(_) | Ty::Type => Ok(Ty::Dyn),
            other => err(
                at,
                format!(
                    "`.{field}` selects a field, and {other_a} has none",
                    other_a = other.article()
                ),
            ),
        }
    }

    fn index(&self, t: &Ty<'s>, i: &Ty<'s>, at: usize) -> R<'s> {
        match t {
            Ty::Dyn => Ok(Ty::Dyn),
            Ty::Opt(inner) => self.index(inner, i, at),
            Ty::List(elem) => match i {
                Ty::Int | Ty::Uint | Ty::Dyn => Ok((**elem).clone()),
                other => err(
                    at,
                    format!(
                        "a list is indexed by an int, not {other_a}",
                        other_a = other.article()
                    ),
                ),
            },
            Ty::Map(_, v) => Ok((**v).clone()),
            other => err(
                at,
                format!(
                    "`[...]` indexes a list or a map, and this is {other_a}",
                    other_a = other.article()
                ),
            ),
        }
    }

    fn binary(&self, op: Op, l: &Ty<'s>, r: &Ty<'s>, at: usize) -> R<'s> {
        let either_dyn = l.is_dyn() || r.is_dyn();
        let mismatch = || {
            err(
                at,
                format!(
                    "no `{op}` between {l_a} and {r_a}",
                    l_a = l.article(),
                    r_a = r.article()
                ),
            )
        };
        match op {
            Op::And | Op::Or => {
                for t in [l, r] {
                    if !matches!(t, Ty::Bool | Ty::Dyn) {
                        return err(
                            at,
                            format!(
                                "`{op}` joins bools, and one side is {t_a}",
                                t_a = t.article()
                            ),
                        );
                    }
                }
                Ok(Ty::Bool)
            }
            Op::Eq | Op::Ne => match (l.scalar(), r.scalar()) {
                (Some(x), Some(y)) if x != y => mismatch(),
                _ => Ok(Ty::Bool),
            },
            Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                if either_dyn || (l.numeric() && r.numeric()) {
                    return Ok(Ty::Bool);
                }
                match (l, r) {
                    (Ty::String, Ty::String)
                    | (Ty::Bytes, Ty::Bytes)
                    | (Ty::Bool, Ty::Bool)
                    | (Ty::Timestamp, Ty::Timestamp)
                    | (Ty::Duration, Ty::Duration) => Ok(Ty::Bool),
                    _ => mismatch(),
                }
            }
            Op::In => match r {
                Ty::List(_) | Ty::Map(..) | Ty::Dyn => Ok(Ty::Bool),
                _ => err(
                    at,
                    format!(
                        "`in` looks in a list or a map, and this is {r_a}",
                        r_a = r.article()
                    ),
                ),
            },
            Op::Add => {
                if either_dyn {
                    return Ok(Ty::Dyn);
                }
                match (l, r) {
                    (Ty::Int, Ty::Int)
                    | (Ty::Uint, Ty::Uint)
                    | (Ty::Double, Ty::Double)
                    | (Ty::String, Ty::String)
                    | (Ty::Bytes, Ty::Bytes)
                    | (Ty::Duration, Ty::Duration) => Ok(l.clone()),
                    (Ty::List(a), Ty::List(b)) => Ok(if a.same_kind(b) {
                        l.clone()
                    } else {
                        Ty::List(Box::new(Ty::Dyn))
                    }),
                    (Ty::Timestamp, Ty::Duration) | (Ty::Duration, Ty::Timestamp) => {
                        Ok(Ty::Timestamp)
                    }
                    _ => mismatch(),
                }
            }
            Op::Sub => {
                if either_dyn {
                    return Ok(Ty::Dyn);
                }
                match (l, r) {
                    (Ty::Int, Ty::Int) | (Ty::Uint, Ty::Uint) | (Ty::Double, Ty::Double) => {
                        Ok(l.clone())
                    }
                    (Ty::Timestamp, Ty::Timestamp) | (Ty::Duration, Ty::Duration) => {
                        Ok(Ty::Duration)
                    }
                    (Ty::Timestamp, Ty::Duration) => Ok(Ty::Timestamp),
                    _ => mismatch(),
                }
            }
            Op::Mul | Op::Div | Op::Mod => {
                if either_dyn {
                    return Ok(Ty::Dyn);
                }
                match (l, r) {
                    (Ty::Int, Ty::Int) | (Ty::Uint, Ty::Uint) => Ok(l.clone()),
                    (Ty::Double, Ty::Double) if op != Op::Mod => Ok(Ty::Double),
                    _ => mismatch(),
                }
            }
            Op::Not | Op::Neg => unreachable!("unary"),
        }
    }

    /// A macro's variable: an identifier.
    fn var_name(&self, e: &Expr, macro_name: &str) -> Result<String, TypeError> {
        match &e.kind {
            Kind::Ident(name) => Ok(name.clone()),
            _ => Err(TypeError {
                message: format!("`{macro_name}` takes a variable name first"),
                at: e.at,
            }),
        }
    }

    /// Checks `body` with `bindings` in scope.
    fn scoped(&mut self, bindings: &[(String, Ty<'s>)], body: &Expr) -> R<'s> {
        let saved: Vec<(String, Option<Ty<'s>>)> = bindings
            .iter()
            .map(|(n, t)| (n.clone(), self.vars.insert(n.clone(), t.clone())))
            .collect();
        let out = self.check(body);
        for (n, old) in saved {
            match old {
                Some(t) => self.vars.insert(n, t),
                None => self.vars.remove(&n),
            };
        }
        out
    }

    fn call(&mut self, target: Option<&Expr>, name: &str, args: &[Expr], at: usize) -> R<'s> {
        // Namespaced functions: `optional.of(x)`, `sets.contains(a, b)`, `cel.bind(v, i, e)`.
        if let Some(Expr {
            kind: Kind::Ident(ns),
            ..
        }) = target
            && !self.vars.contains_key(ns)
            && NAMESPACES.contains(&ns.as_str())
        {
            return self.namespaced(ns, name, args);
        }
        let Some(target) = target else {
            return self.global(name, args, at);
        };
        let recv = self.check(target)?;
        // Macros on a collection.
        if matches!(name, "all" | "exists" | "exists_one" | "map" | "filter") && !args.is_empty() {
            return self.comprehension(&recv, name, args, at);
        }
        let mut types = Vec::new();
        for a in args {
            types.push(self.check(a)?);
        }
        if !METHODS.contains(&name) {
            return err(at, format!("undeclared reference to method `{name}`"));
        }
        let recv = match recv {
            Ty::Opt(inner) if matches!(name, "hasValue" | "value" | "orValue" | "or") => {
                return Ok(match name {
                    "hasValue" => Ty::Bool,
                    "or" => Ty::Opt(inner),
                    _ => *inner,
                });
            }
            other => other,
        };
        if recv.is_dyn() || matches!(recv, Ty::Lib(_) | Ty::Type) {
            return Ok(match name {
                "contains" | "startsWith" | "endsWith" | "matches" | "isSorted" => Ty::Bool,
                "size" | "indexOf" | "lastIndexOf" => Ty::Int,
                _ => Ty::Dyn,
            });
        }
        let wrong = || {
            err(
                at,
                format!("no method `{name}` on {recv_a}", recv_a = recv.article()),
            )
        };
        let string = matches!(recv, Ty::String);
        match name {
            "size" => match recv {
                Ty::String | Ty::Bytes | Ty::List(_) | Ty::Map(..) => Ok(Ty::Int),
                _ => wrong(),
            },
            "contains" | "startsWith" | "endsWith" | "matches" if string => Ok(Ty::Bool),
            "charAt" | "lowerAscii" | "upperAscii" | "replace" | "substring" | "trim" | "find"
            | "format" | "reverse" | "quote"
                if string =>
            {
                Ok(Ty::String)
            }
            "split" | "findAll" if string => Ok(Ty::List(Box::new(Ty::String))),
            "indexOf" | "lastIndexOf" if string || matches!(recv, Ty::List(_)) => Ok(Ty::Int),
            "join" => match &recv {
                Ty::List(e) if matches!(**e, Ty::String | Ty::Dyn) => Ok(Ty::String),
                _ => wrong(),
            },
            "isSorted" if matches!(recv, Ty::List(_)) => Ok(Ty::Bool),
            "sum" | "min" | "max" | "first" | "last" => match &recv {
                Ty::List(e) => Ok((**e).clone()),
                _ => wrong(),
            },
            "distinct" | "flatten" | "slice" | "sort" | "sortBy" => match &recv {
                Ty::List(_) => Ok(Ty::Dyn),
                _ => wrong(),
            },
            "getDate" | "getDayOfMonth" | "getDayOfWeek" | "getDayOfYear" | "getFullYear"
            | "getMonth"
                if matches!(recv, Ty::Timestamp) =>
            {
                Ok(Ty::Int)
            }
            "getHours" | "getMilliseconds" | "getMinutes" | "getSeconds"
                if matches!(recv, Ty::Timestamp | Ty::Duration) =>
            {
                Ok(Ty::Int)
            }
            "transformList" | "transformMap" | "transformMapEntry" => match &recv {
                Ty::List(_) | Ty::Map(..) => Ok(Ty::Dyn),
                _ => wrong(),
            },
            _ => wrong(),
        }
    }

    fn comprehension(&mut self, recv: &Ty<'s>, name: &str, args: &[Expr], at: usize) -> R<'s> {
        let (first, second) = match recv {
            Ty::List(e) => (Ty::Int, (**e).clone()),
            Ty::Map(k, v) => ((**k).clone(), (**v).clone()),
            Ty::Dyn => (Ty::Dyn, Ty::Dyn),
            other => {
                return err(
                    at,
                    format!(
                        "`{name}` iterates over a list or a map, and this is {other_a}",
                        other_a = other.article()
                    ),
                );
            }
        };
        // One variable (the element, or the map's key), or two (index or key, and value).
        let one = match recv {
            Ty::List(_) => second.clone(),
            _ => first.clone(),
        };
        let expect_bool = |t: &Ty<'s>, what: &str, at: usize| -> Result<(), TypeError> {
            if matches!(t, Ty::Bool | Ty::Dyn) {
                Ok(())
            } else {
                Err(TypeError {
                    message: format!(
                        "the {what} of `{name}` is {t_a}, not a bool",
                        t_a = t.article()
                    ),
                    at,
                })
            }
        };
        match (name, args.len()) {
            ("all" | "exists" | "exists_one", 2) => {
                let v = self.var_name(&args[0], name)?;
                let t = self.scoped(&[(v, one)], &args[1])?;
                expect_bool(&t, "predicate", args[1].at)?;
                Ok(Ty::Bool)
            }
            ("all" | "exists" | "exists_one", 3) => {
                let (a, b) = (
                    self.var_name(&args[0], name)?,
                    self.var_name(&args[1], name)?,
                );
                let t = self.scoped(&[(a, first), (b, second)], &args[2])?;
                expect_bool(&t, "predicate", args[2].at)?;
                Ok(Ty::Bool)
            }
            ("map", 2) => {
                let v = self.var_name(&args[0], name)?;
                let t = self.scoped(&[(v, one)], &args[1])?;
                Ok(Ty::List(Box::new(t)))
            }
            ("map", 3) => {
                let v = self.var_name(&args[0], name)?;
                let bindings = [(v, one)];
                let f = self.scoped(&bindings, &args[1])?;
                expect_bool(&f, "filter", args[1].at)?;
                let t = self.scoped(&bindings, &args[2])?;
                Ok(Ty::List(Box::new(t)))
            }
            ("filter", 2) => {
                let v = self.var_name(&args[0], name)?;
                let t = self.scoped(&[(v, one.clone())], &args[1])?;
                expect_bool(&t, "predicate", args[1].at)?;
                Ok(Ty::List(Box::new(one)))
            }
            _ => err(
                at,
                format!(
                    "`{name}` takes {} arguments",
                    if name == "filter" { "2" } else { "2 or 3" }
                ),
            ),
        }
    }

    fn global(&mut self, name: &str, args: &[Expr], at: usize) -> R<'s> {
        if name == "has" {
            let [arg] = args else {
                return err(at, "`has` takes one field selection: has(self.field)");
            };
            let Kind::Select { operand, field, .. } = &arg.kind else {
                return err(arg.at, "`has` takes a field selection: has(self.field)");
            };
            let t = self.check(operand)?;
            self.select(&t, field, arg.at)?;
            return Ok(Ty::Bool);
        }
        if !GLOBALS.contains(&name) {
            return err(at, format!("undeclared reference to function `{name}`"));
        }
        let mut types = Vec::new();
        for a in args {
            types.push(self.check(a)?);
        }
        Ok(match name {
            "size" => match types.first() {
                Some(Ty::String | Ty::Bytes | Ty::List(_) | Ty::Map(..) | Ty::Dyn) => Ty::Int,
                Some(other) => {
                    return err(
                        at,
                        format!("no `size` of {other_a}", other_a = other.article()),
                    );
                }
                None => return err(at, "`size` takes one argument"),
            },
            "int" => Ty::Int,
            "uint" => Ty::Uint,
            "double" => Ty::Double,
            "string" => Ty::String,
            "bytes" => Ty::Bytes,
            "bool" | "matches" | "isQuantity" | "isURL" | "isIP" | "isCIDR" | "isSemver" => {
                Ty::Bool
            }
            "duration" => Ty::Duration,
            "timestamp" => Ty::Timestamp,
            "type" => Ty::Type,
            "quantity" => Ty::Lib("Quantity"),
            "url" => Ty::Lib("URL"),
            "ip" => Ty::Lib("IP"),
            "cidr" => Ty::Lib("CIDR"),
            "semver" => Ty::Lib("Semver"),
            _ => Ty::Dyn,
        })
    }

    fn namespaced(&mut self, ns: &str, name: &str, args: &[Expr]) -> R<'s> {
        let mut types = Vec::new();
        for a in args {
            types.push(self.check(a)?);
        }
        Ok(match (ns, name) {
            ("optional", "of" | "ofNonZeroValue") => {
                Ty::Opt(Box::new(types.into_iter().next().unwrap_or(Ty::Dyn)))
            }
            ("optional", "none") => Ty::Opt(Box::new(Ty::Dyn)),
            ("sets", "contains" | "equivalent" | "intersects") => Ty::Bool,
            ("strings", "quote") => Ty::String,
            ("ip", "isCanonical") => Ty::Bool,
            _ => Ty::Dyn,
        })
    }
}
