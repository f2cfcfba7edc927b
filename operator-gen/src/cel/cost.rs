//! The API server's static cost estimate of a CRD rule, as `docs/src/design/cel-cost.md`
//! describes it (cel-go's estimator with the Kubernetes library costs and size estimates):
//! a rule's worst-case cost, times how many values of its node a request may hold, must stay
//! within 10,000,000, and all rules of a version's schema together within 100,000,000.

use crate::api::apiextensions::v1::JSONSchemaProps;

use super::check::{Ty, node_key, property_of_cel};
use super::parse::{Expr, Kind, Op};

/// The budget of one rule (its cost times its node's cardinality).
pub const RULE_LIMIT: u64 = 10_000_000;
/// The budget of all the rules of one version's schema.
pub const SCHEMA_LIMIT: u64 = 100_000_000;
/// The request size every unbounded size is derived from.
const MAX_REQUEST: u64 = 3 * 1024 * 1024;
const UNBOUNDED_STRING: u64 = MAX_REQUEST - 2;

/// A `{min, max}` pair of sizes or costs; arithmetic saturates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// The least.
    pub min: u64,
    /// The most.
    pub max: u64,
}

const UNKNOWN: Range = Range {
    min: 0,
    max: u64::MAX,
};

fn r(min: u64, max: u64) -> Range {
    Range { min, max }
}

fn one() -> Range {
    r(1, 1)
}

impl Range {
    fn add(self, o: Range) -> Range {
        r(
            self.min.saturating_add(o.min),
            self.max.saturating_add(o.max),
        )
    }
    fn mul(self, o: Range) -> Range {
        r(
            self.min.saturating_mul(o.min),
            self.max.saturating_mul(o.max),
        )
    }
    fn union(self, o: Range) -> Range {
        r(self.min.min(o.min), self.max.max(o.max))
    }
    /// `ceil(x * f)` on each end, saturating as cel-go does.
    fn factor(self, f: f64) -> Range {
        let one = |x: u64| -> u64 {
            if x as f64 > u64::MAX as f64 / f {
                return u64::MAX;
            }
            let v = (x as f64 * f).ceil();
            if v >= u64::MAX as f64 {
                u64::MAX
            } else {
                v as u64
            }
        };
        r(one(self.min), one(self.max))
    }
}

/// What `size()` of a value of `schema` can be at most (the API server's MaxElements).
pub fn max_elements(schema: &JSONSchemaProps) -> u64 {
    if schema.x_kubernetes_int_or_string == Some(true) {
        return schema
            .max_length
            .map_or(UNBOUNDED_STRING, |l| (l.max(0) as u64).saturating_mul(4));
    }
    match schema.type_.as_deref() {
        Some("string") => match schema.format.as_deref() {
            Some("byte") => schema
                .max_length
                .map_or(UNBOUNDED_STRING, |l| l.max(0) as u64),
            Some("duration") => 32,
            Some("date") => 12,
            Some("date-time") => 32,
            _ => match (schema.max_length, &schema.enum_) {
                (Some(l), _) => (l.max(0) as u64).saturating_mul(4),
                (None, Some(values)) => values
                    .iter()
                    .filter_map(|v| v.0.as_str().map(|s| s.len() as u64))
                    .max()
                    .unwrap_or(0),
                _ => UNBOUNDED_STRING,
            },
        },
        Some("array") => match schema.max_items {
            Some(n) => n.max(0) as u64,
            None => (MAX_REQUEST - 2) / (items(schema).map_or(2, min_size) + 1),
        },
        Some("object") => match values(schema) {
            Some(v) => match schema.max_properties {
                Some(n) => n.max(0) as u64,
                None => (MAX_REQUEST - 2) / (min_size(v) + 6),
            },
            None => 0,
        },
        _ => 0,
    }
}

/// The fewest bytes a value of `schema` takes in JSON (the API server's MinSerializedSize).
pub fn min_size(schema: &JSONSchemaProps) -> u64 {
    if schema.x_kubernetes_int_or_string == Some(true) {
        return 1;
    }
    match schema.type_.as_deref() {
        Some("integer") | Some("number") => 1,
        Some("boolean") => 4,
        Some("string") => match schema.format.as_deref() {
            Some("duration") => 3,
            Some("date") => 12,
            Some("date-time") => 21,
            _ => 2,
        },
        Some("object") if values(schema).is_none() => {
            let props = schema.properties.as_ref();
            2 + schema
                .required
                .iter()
                .flatten()
                .filter_map(|name| {
                    let p = props?.get(name)?;
                    p.default
                        .is_none()
                        .then(|| name.len() as u64 + min_size(p) + 4)
                })
                .sum::<u64>()
        }
        _ => 2,
    }
}

fn items(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    s.items_schema()
}

fn values(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    s.values_schema()
}

/// How many values of a node a request may hold when a list or map above it is unbounded.
pub fn fallback_cardinality(schema: &JSONSchemaProps) -> u64 {
    MAX_REQUEST / (min_size(schema) + 1)
}

/// A step of a size path below the rule's node.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Field(String),
    Items,
    Values,
    Keys,
    Indices,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    list: bool,
    key: Range,
    val: Range,
}

/// What the estimate knows of one node.
#[derive(Debug, Clone)]
struct Info {
    cost: Range,
    /// A size found without the path (a literal's, a call's, a comprehension's).
    size: Option<Range>,
    /// The path from the rule's node (the variable name dropped), when the node has one.
    path: Option<Vec<Step>>,
    entry: Option<Entry>,
}

impl Info {
    fn cost(cost: Range) -> Info {
        Info {
            cost,
            size: None,
            path: None,
            entry: None,
        }
    }
}

#[derive(Debug, Clone)]
struct Local {
    name: String,
    path: Option<Vec<Step>>,
    size: Option<Range>,
}

/// Estimates a checked rule's cost as the API server does (`docs/src/design/cel-cost.md`).
pub struct Estimator<'a, 's> {
    node: &'s JSONSchemaProps,
    root: bool,
    types: &'a std::collections::HashMap<usize, Ty<'s>>,
    locals: Vec<Local>,
}

impl std::fmt::Debug for Estimator<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Estimator").finish_non_exhaustive()
    }
}

impl<'a, 's> Estimator<'a, 's> {
    /// An estimator for rules on `node` (`root`: the kind's root, whose `metadata` shows
    /// `name` and `generateName`), with the node types the checker found.
    pub fn new(
        node: &'s JSONSchemaProps,
        root: bool,
        types: &'a std::collections::HashMap<usize, Ty<'s>>,
    ) -> Self {
        Estimator {
            node,
            root,
            types,
            locals: Vec::new(),
        }
    }

    /// The worst-case cost of `e`.
    pub fn cost(&mut self, e: &Expr) -> u64 {
        self.est(e).cost.max
    }

    fn ty(&self, e: &Expr) -> Ty<'s> {
        self.types.get(&node_key(e)).cloned().unwrap_or(Ty::Dyn)
    }

    /// The schema size at `path` below the rule's node (MaxElements of the node it ends at).
    fn path_size(&self, path: &[Step]) -> Option<Range> {
        let mut node = self.node;
        let mut at_root = self.root;
        for (i, step) in path.iter().enumerate() {
            match step {
                Step::Items => node = items(node)?,
                Step::Values => node = values(node)?,
                // Map keys are the global string type: MaxElements 0.
                Step::Keys => return (i + 1 == path.len()).then_some(r(0, 0)),
                Step::Indices => return None,
                Step::Field(f) => {
                    let name = property_of_cel(f);
                    if at_root && name == "metadata" {
                        // The root's metadata shows name and generateName, unbounded strings.
                        return match path.get(i + 1) {
                            None => Some(r(0, 0)),
                            Some(Step::Field(n)) if n == "name" || n == "generateName" => {
                                (i + 2 == path.len()).then_some(r(0, UNBOUNDED_STRING))
                            }
                            _ => None,
                        };
                    }
                    node = node.properties.as_ref()?.get(&name)?;
                }
            }
            at_root = false;
        }
        Some(r(0, max_elements(node)))
    }

    /// `computeSize`: a size found on the way, else the schema's by path, else 1 for a
    /// scalar, else a local's, else unknown.
    fn size(&self, e: &Expr, info: &Info) -> Range {
        if let Some(s) = info.size {
            return s;
        }
        if let Some(s) = info.path.as_deref().and_then(|p| self.path_size(p)) {
            return s;
        }
        let scalar = |t: &Ty<'_>| {
            matches!(
                t,
                Ty::Bool | Ty::Double | Ty::Duration | Ty::Int | Ty::Timestamp | Ty::Uint
            )
        };
        match self.ty(e) {
            t if scalar(&t) => return one(),
            Ty::Opt(inner) if scalar(&inner) => return one(),
            _ => {}
        }
        if let Kind::Ident(name) = &e.kind
            && let Some(local) = self.locals.iter().rev().find(|l| &l.name == name)
            && let Some(s) = local.size
        {
            return s;
        }
        UNKNOWN
    }

    fn est(&mut self, e: &Expr) -> Info {
        match &e.kind {
            Kind::Int(_) | Kind::Uint(_) | Kind::Double(_) | Kind::Bool(_) | Kind::Null => Info {
                size: Some(one()),
                ..Info::cost(r(0, 0))
            },
            Kind::String(s) => {
                let n = s.chars().count() as u64;
                Info {
                    size: Some(r(n, n)),
                    ..Info::cost(r(0, 0))
                }
            }
            Kind::Bytes(b) => Info {
                size: Some(r(b.len() as u64, b.len() as u64)),
                ..Info::cost(r(0, 0))
            },
            Kind::Ident(name) => {
                let local = self.locals.iter().rev().find(|l| &l.name == name);
                Info {
                    path: match local {
                        Some(l) => l.path.clone(),
                        None => Some(Vec::new()),
                    },
                    ..Info::cost(one())
                }
            }
            Kind::Select {
                operand,
                field,
                optional,
            } => {
                let o = self.est(operand);
                if *optional {
                    return Info::cost(o.cost.add(one()));
                }
                let fee = match self.ty(operand) {
                    Ty::Map(..) | Ty::Object(_) | Ty::Metadata => one(),
                    _ => r(0, 0),
                };
                Info {
                    path: o.path.map(|mut p| {
                        p.push(Step::Field(field.clone()));
                        p
                    }),
                    ..Info::cost(o.cost.add(fee))
                }
            }
            Kind::Index {
                operand,
                index,
                optional,
            } => {
                let o = self.est(operand);
                let i = self.est(index);
                let cost = o.cost.add(i.cost).add(one());
                if *optional {
                    return Info::cost(cost);
                }
                let list = matches!(self.ty(operand), Ty::List(_));
                Info {
                    size: o.entry.map(|en| en.val),
                    path: o.path.map(|mut p| {
                        p.push(if list { Step::Items } else { Step::Values });
                        p
                    }),
                    ..Info::cost(cost)
                }
            }
            Kind::List(elems) => {
                let mut cost = r(10, 10);
                let mut val: Option<Range> = None;
                for (x, _) in elems {
                    let i = self.est(x);
                    cost = cost.add(i.cost);
                    let s = self.size(x, &i);
                    val = Some(val.map_or(s, |v| v.union(s)));
                }
                let n = elems.len() as u64;
                Info {
                    size: Some(r(n, n)),
                    entry: Some(Entry {
                        list: true,
                        key: one(),
                        val: val.unwrap_or(r(0, 0)),
                    }),
                    ..Info::cost(cost)
                }
            }
            Kind::Map(entries) => {
                let mut cost = r(30, 30);
                let (mut ks, mut vs): (Option<Range>, Option<Range>) = (None, None);
                for (k, v, _) in entries {
                    let (ki, vi) = (self.est(k), self.est(v));
                    cost = cost.add(ki.cost).add(vi.cost);
                    let (a, b) = (self.size(k, &ki), self.size(v, &vi));
                    ks = Some(ks.map_or(a, |x| x.union(a)));
                    vs = Some(vs.map_or(b, |x| x.union(b)));
                }
                let n = entries.len() as u64;
                Info {
                    size: Some(r(n, n)),
                    entry: Some(Entry {
                        list: false,
                        key: ks.unwrap_or(r(0, 0)),
                        val: vs.unwrap_or(r(0, 0)),
                    }),
                    ..Info::cost(cost)
                }
            }
            Kind::Message { fields, .. } => {
                let mut cost = r(40, 40);
                for (_, v) in fields {
                    cost = cost.add(self.est(v).cost);
                }
                Info::cost(cost)
            }
            Kind::Unary(_, operand) => Info::cost(self.est(operand).cost.add(one())),
            Kind::Cond(c, a, b) => {
                let ci = self.est(c);
                let (ai, bi) = (self.est(a), self.est(b));
                let (sa, sb) = (self.size(a, &ai), self.size(b, &bi));
                Info {
                    size: Some(sa.union(sb)),
                    entry: match (ai.entry, bi.entry) {
                        (Some(x), Some(y)) => Some(Entry {
                            list: x.list,
                            key: x.key.union(y.key),
                            val: x.val.union(y.val),
                        }),
                        _ => None,
                    },
                    ..Info::cost(ci.cost.add(ai.cost.union(bi.cost)))
                }
            }
            Kind::Binary(op, l, rt) => self.binary(*op, l, rt),
            Kind::Call { target, name, args } => self.call(target.as_deref(), name, args),
        }
    }

    fn binary(&mut self, op: Op, l: &Expr, rt: &Expr) -> Info {
        let (li, ri) = (self.est(l), self.est(rt));
        let args = li.cost.add(ri.cost);
        let (sl, sr) = (self.size(l, &li), self.size(rt, &ri));
        let (tl, tr) = (self.ty(l), self.ty(rt));
        let stringish = |t: &Ty<'_>| matches!(t, Ty::String | Ty::Bytes);
        let compare = || {
            let m = sl.max.min(sr.max);
            r(u64::from(m > 0), m).factor(0.1)
        };
        match op {
            Op::And | Op::Or => Info::cost(r(li.cost.min, li.cost.max.saturating_add(ri.cost.max))),
            Op::Eq | Op::Ne => {
                let fee = match (&tl, &tr, op) {
                    (Ty::Lib("URL"), Ty::Lib("URL"), Op::Eq) => {
                        r(1, if sr.max == u64::MAX { 1 } else { sr.max }).factor(0.1)
                    }
                    (Ty::Lib(a), Ty::Lib(b), Op::Eq) if a == b => one(),
                    _ => compare(),
                };
                Info::cost(args.add(fee))
            }
            Op::Lt | Op::Le | Op::Gt | Op::Ge if stringish(&tl) || stringish(&tr) => {
                Info::cost(args.add(compare()))
            }
            Op::Add => {
                let concat = sl.add(sr);
                match (&tl, &tr) {
                    (Ty::String | Ty::Bytes, _) => Info {
                        size: Some(concat),
                        ..Info::cost(args.add(concat.factor(0.1)))
                    },
                    (Ty::List(_), _) => Info {
                        size: Some(concat),
                        entry: match (li.entry, ri.entry) {
                            (Some(x), Some(y)) => Some(Entry {
                                list: true,
                                key: x.key.union(y.key),
                                val: x.val.union(y.val),
                            }),
                            _ => None,
                        },
                        ..Info::cost(args.add(one()))
                    },
                    (Ty::Dyn, _) | (_, Ty::Dyn) => Info {
                        size: Some(concat),
                        ..Info::cost(args.add(concat.factor(0.1).union(one())))
                    },
                    _ => Info::cost(args.add(one())),
                }
            }
            Op::In => match tr {
                Ty::List(_) => Info::cost(args.add(r(sr.min, sr.max))),
                Ty::Dyn => Info::cost(args.add(r(1, sr.max.max(1)))),
                _ => Info::cost(args.add(one())),
            },
            _ => Info::cost(args.add(one())),
        }
    }

    /// The element size of a list whose info is `list`: through its path (`@items`), else
    /// unknown.
    fn elem_size(&self, list: &Info) -> Range {
        list.path
            .as_ref()
            .and_then(|p| {
                let mut p = p.clone();
                p.push(Step::Items);
                self.path_size(&p)
            })
            .unwrap_or(UNKNOWN)
    }

    fn call(&mut self, target: Option<&Expr>, name: &str, args: &[Expr]) -> Info {
        // Namespaced functions: `optional.of(x)`, `sets.contains(a, b)`, ...
        let ns = match target {
            Some(Expr {
                kind: Kind::Ident(ns),
                ..
            }) if !self.locals.iter().any(|l| &l.name == ns)
                && !matches!(ns.as_str(), "self" | "oldSelf") =>
            {
                Some(ns.as_str())
            }
            _ => None,
        };
        if let Some(range) = target
            && ns.is_none()
            && matches!(
                name,
                "all"
                    | "exists"
                    | "exists_one"
                    | "existsOne"
                    | "map"
                    | "filter"
                    | "transformList"
                    | "transformMap"
                    | "transformMapEntry"
            )
        {
            return self.comprehension(range, name, args);
        }
        if target.is_none() && name == "has" {
            // A presence test costs its operand only (free in Kubernetes).
            return match args.first().map(|a| &a.kind) {
                Some(Kind::Select { operand, .. }) => Info::cost(self.est(operand).cost),
                _ => Info::cost(r(0, 0)),
            };
        }
        let (t_info, t_size, t_ty) = match (target, ns) {
            (Some(t), None) => {
                let i = self.est(t);
                let s = self.size(t, &i);
                (Some(i), s, self.ty(t))
            }
            _ => (None, UNKNOWN, Ty::Dyn),
        };
        let mut sizes = Vec::new();
        let mut arg_cost = r(0, 0);
        for a in args {
            let i = self.est(a);
            sizes.push(self.size(a, &i));
            arg_cost = arg_cost.add(i.cost);
        }
        let target_cost = t_info.as_ref().map_or(r(0, 0), |i| i.cost);
        let arg0 = sizes.first().copied().unwrap_or(UNKNOWN);
        let string_elems = matches!(&t_ty, Ty::List(e) if matches!(**e, Ty::String | Ty::Bytes));
        let (fee, size): (Range, Option<Range>) = match (ns, name) {
            (Some("sets"), "contains" | "intersects") => (
                sizes
                    .first()
                    .copied()
                    .unwrap_or(UNKNOWN)
                    .mul(sizes.get(1).copied().unwrap_or(UNKNOWN))
                    .add(one()),
                None,
            ),
            (Some("sets"), "equivalent") => (
                sizes
                    .first()
                    .copied()
                    .unwrap_or(UNKNOWN)
                    .mul(sizes.get(1).copied().unwrap_or(UNKNOWN))
                    .mul(r(2, 2))
                    .add(one()),
                None,
            ),
            (Some("strings"), "quote") => (
                arg0.factor(0.1),
                Some(r(
                    arg0.min + 2,
                    arg0.max.saturating_mul(2).saturating_add(2),
                )),
            ),
            (Some("ip"), "isCanonical") => (arg0.factor(0.2), None),
            (Some(_), _) => (one(), None),
            (None, "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf")
                if matches!(t_ty, Ty::List(_) | Ty::Dyn) && target.is_some() =>
            {
                let e = if string_elems {
                    one().add(
                        self.elem_size(t_info.as_ref().expect("a target"))
                            .factor(0.1),
                    )
                } else {
                    one()
                };
                (t_size.mul(e), None)
            }
            (None, "indexOf" | "lastIndexOf") => (t_size.factor(0.1), None),
            (None, "url") if target.is_none() => (arg0.factor(0.1), Some(arg0)),
            (None, "lowerAscii" | "upperAscii" | "substring" | "trim") => {
                (t_size.factor(0.1), Some(t_size))
            }
            (None, "replace") => (t_size.factor(0.2), None),
            (None, "split") => (
                t_size.factor(0.2),
                Some(match args.get(1).map(|a| &a.kind) {
                    Some(Kind::Int(n)) if *n >= 0 => r(0, *n as u64),
                    _ => r(0, t_size.max),
                }),
            ),
            (None, "join") => {
                let elem = self.elem_size(t_info.as_ref().expect("a target"));
                let sep = sizes.first().copied().unwrap_or(r(0, 0));
                let gaps = r(t_size.min.saturating_sub(1), t_size.max.saturating_sub(1));
                let j = t_size.mul(elem).add(sep.mul(gaps));
                (j.factor(0.1), Some(j))
            }
            (None, "find" | "findAll") if target.is_some() => (
                t_size.add(one()).factor(0.1).mul(arg0.factor(0.25)),
                Some(r(0, t_size.max)),
            ),
            (
                None,
                "cidr" | "isIP" | "isCIDR" | "ip" | "quantity" | "isQuantity" | "semver"
                | "isSemver",
            ) if target.is_none() => (arg0.factor(0.1), None),
            (None, "containsIP" | "containsCIDR") => {
                let base = if name == "containsIP" {
                    r(1, 4)
                } else {
                    r(3, 7)
                };
                // The string overloads parse their argument too.
                let parse = if matches!(args.first().map(|a| self.ty(a)), Some(Ty::String)) {
                    arg0.factor(0.1)
                } else {
                    r(0, 0)
                };
                (base.add(parse), None)
            }
            (None, "validate") => (arg0.factor(0.1).factor(32.0), None),
            (None, "format") if target.is_some() => (t_size.factor(0.1), None),
            (None, "bytes")
                if target.is_none()
                    && matches!(args.first().map(|a| self.ty(a)), Some(Ty::String)) =>
            {
                (
                    arg0.factor(0.1),
                    Some(r(arg0.min, arg0.max.saturating_mul(4))),
                )
            }
            (None, "string")
                if target.is_none()
                    && matches!(args.first().map(|a| self.ty(a)), Some(Ty::Bytes)) =>
            {
                (arg0.factor(0.1), Some(r(arg0.min / 4, arg0.max)))
            }
            (None, "startsWith" | "endsWith") => (arg0.factor(0.1), None),
            (None, "matches") if target.is_some() => {
                (t_size.add(one()).factor(0.1).mul(arg0.factor(0.25)), None)
            }
            (None, "contains") if target.is_some() => {
                (t_size.factor(0.1).mul(arg0.factor(0.1)), None)
            }
            (None, "slice" | "reverse" | "flatten") if target.is_some() => {
                (t_size.factor(1.0).add(r(11, 11)), Some(t_size))
            }
            (None, "distinct" | "sort") if target.is_some() => {
                let k = if string_elems && name == "sort" {
                    2.1
                } else {
                    2.0
                };
                (t_size.factor(k).add(r(11, 11)), Some(t_size.mul(t_size)))
            }
            _ => (one(), None),
        };
        Info {
            size,
            ..Info::cost(target_cost.add(arg_cost).add(fee))
        }
    }

    fn comprehension(&mut self, range: &Expr, name: &str, args: &[Expr]) -> Info {
        let ri = self.est(range);
        let n = self.size(range, &ri);
        let list = !matches!(self.ty(range), Ty::Map(..));
        let base_path = ri.path.clone();
        // A range without a path (a literal, a `map` or `filter` result) gives its variables
        // the path `@items` alone, whose first step the API server drops like a variable
        // name: they get the rule's node's own size.
        let var_path = |step: Step| -> Option<Vec<Step>> {
            Some(match &base_path {
                Some(p) => {
                    let mut p = p.clone();
                    p.push(step);
                    p
                }
                None => Vec::new(),
            })
        };
        let (key_size, val_size) = match ri.entry {
            Some(e) => (Some(e.key), Some(e.val)),
            None => (None, None),
        };
        let names: Vec<String> = args
            .iter()
            .take_while(|a| matches!(a.kind, Kind::Ident(_)))
            .filter_map(|a| match &a.kind {
                Kind::Ident(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        let two = matches!(name, "transformList" | "transformMap" | "transformMapEntry")
            || (matches!(name, "all" | "exists" | "exists_one" | "existsOne") && args.len() == 3);
        let pushed = if two && names.len() >= 2 {
            self.locals.push(Local {
                name: names[0].clone(),
                path: var_path(if list { Step::Indices } else { Step::Keys }),
                size: key_size,
            });
            self.locals.push(Local {
                name: names[1].clone(),
                path: var_path(if list { Step::Items } else { Step::Values }),
                size: val_size,
            });
            2
        } else if let Some(v) = names.first() {
            self.locals.push(Local {
                name: v.clone(),
                path: var_path(if list { Step::Items } else { Step::Keys }),
                size: if list { val_size } else { key_size },
            });
            1
        } else {
            0
        };
        let bodies: Vec<&Expr> = args[pushed.min(args.len())..].iter().collect();
        let mut costs = Vec::new();
        let mut last_size = None;
        for b in &bodies {
            let i = self.est(b);
            last_size = Some(self.size(b, &i));
            costs.push(i.cost);
        }
        for _ in 0..pushed {
            self.locals.pop();
        }
        let c = |i: usize| costs.get(i).copied().unwrap_or(r(0, 0));
        let per = |k: u64| r(k, k);
        let (fixed, step) = match (name, bodies.len()) {
            ("all", _) => (per(1), c(0).add(per(3))),
            ("exists", _) => (per(1), c(0).add(per(4))),
            ("exists_one" | "existsOne", _) => (per(2), c(0).add(per(2))),
            ("map" | "transformList", 1) => (per(11), c(0).add(per(12))),
            ("map" | "transformList", _) => (per(11), c(0).add(c(1)).add(per(12))),
            ("filter", _) => (per(11), c(0).add(per(13))),
            ("transformMap", 1) => (per(31), c(0).add(per(3))),
            ("transformMap", _) => (per(31), c(0).add(c(1)).add(per(3))),
            ("transformMapEntry", 1) => (per(31), c(0).add(per(2))),
            (_, _) => (per(31), c(0).add(c(1)).add(per(2))),
        };
        let cost = ri.cost.add(fixed).add(n.mul(step));
        let collection = matches!(
            name,
            "map" | "filter" | "transformList" | "transformMap" | "transformMapEntry"
        );
        if !collection {
            return Info {
                size: Some(one()),
                ..Info::cost(cost)
            };
        }
        let elem = if name == "filter" {
            self.locals.push(Local {
                name: names.first().cloned().unwrap_or_default(),
                path: var_path(Step::Items),
                size: val_size,
            });
            let x = Expr {
                kind: Kind::Ident(names.first().cloned().unwrap_or_default()),
                at: 0,
            };
            let i = self.est(&x);
            let s = self.size(&x, &i);
            self.locals.pop();
            s
        } else {
            last_size.unwrap_or(UNKNOWN)
        };
        Info {
            size: Some(n),
            entry: Some(Entry {
                list: true,
                key: one(),
                val: r(0, 0).union(elem),
            }),
            ..Info::cost(cost)
        }
    }
}

/// Go's `%.1f` / `%f` of the factor, or "more than 100x".
pub fn factor_text(cost: u64, limit: u64) -> String {
    let f = cost as f64 / limit as f64;
    if f > 100.0 {
        "more than 100x".to_string()
    } else if f < 1.5 {
        format!("{f:.6}x")
    } else {
        format!("{f:.1}x")
    }
}

#[cfg(test)]
mod tests;
