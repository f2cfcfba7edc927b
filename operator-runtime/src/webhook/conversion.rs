//! Conversion between the versions of a kind, through a hub version (the hub-and-spoke
//! scheme of controller-runtime: every version converts to and from the hub, so n versions
//! need 2(n-1) conversions, not n(n-1)). The conversions are the operator's `From` or
//! `TryFrom` impls between each spoke type and the hub type.

use std::fmt;

use serde_json::{Map, Value};

use super::WebhookResource;

type ToHub<H> = Box<dyn Fn(Value) -> Result<H, String> + Send + Sync>;
type FromHub<H> = Box<dyn Fn(H) -> Result<Value, String> + Send + Sync>;

struct Version<H> {
    api_version: String,
    to_hub: ToHub<H>,
    from_hub: FromHub<H>,
}

/// The versions of one kind and how each converts to and from the hub `H` (usually the
/// storage version): `Conversion::<v1::CronJob>::hub().spoke::<v2::CronJob>()`. Register it
/// with [`Webhooks::conversion`](super::Webhooks::conversion); the module documentation has
/// a whole example.
pub struct Conversion<H> {
    group: String,
    kind: String,
    versions: Vec<Version<H>>,
    errors: Vec<String>,
}

impl<H> fmt::Debug for Conversion<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conversion")
            .field("group", &self.group)
            .field("kind", &self.kind)
            .field(
                "versions",
                &self
                    .versions
                    .iter()
                    .map(|v| v.api_version.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl<H: WebhookResource> Conversion<H> {
    /// A kind whose hub is `H`'s version.
    pub fn hub() -> Self {
        Self {
            group: H::group(&()).into_owned(),
            kind: H::kind(&()).into_owned(),
            versions: vec![Version {
                api_version: H::api_version(&()).into_owned(),
                to_hub: Box::new(|object| read::<H>(object)),
                from_hub: Box::new(|hub| write(&hub)),
            }],
            errors: Vec::new(),
        }
    }

    /// Adds the version of `S`, converted to the hub with `H: TryFrom<S>` and from it with
    /// `S: TryFrom<H>` (`From` impls give both). `S` must be the same group and kind.
    #[must_use]
    pub fn spoke<S>(mut self) -> Self
    where
        S: WebhookResource,
        H: TryFrom<S>,
        <H as TryFrom<S>>::Error: fmt::Display,
        S: TryFrom<H>,
        <S as TryFrom<H>>::Error: fmt::Display,
    {
        let api_version = S::api_version(&()).into_owned();
        if S::group(&()) != self.group || S::kind(&()) != self.kind {
            self.errors.push(format!(
                "{api_version} {} cannot be a version of {} {}",
                S::kind(&()),
                self.group,
                self.kind
            ));
            return self;
        }
        if self.versions.iter().any(|v| v.api_version == api_version) {
            self.errors.push(format!(
                "{api_version} {} is registered twice for conversion",
                self.kind
            ));
            return self;
        }
        let hub_version = self.versions[0].api_version.clone();
        let (from, to) = (api_version.clone(), hub_version);
        self.versions.push(Version {
            api_version,
            to_hub: Box::new(move |object| {
                let spoke = read::<S>(object)?;
                H::try_from(spoke).map_err(|e| format!("converting {from} to {to}: {e}"))
            }),
            from_hub: Box::new(|hub| {
                let spoke = S::try_from(hub).map_err(|e| {
                    format!(
                        "converting {} to {}: {e}",
                        H::api_version(&()),
                        S::api_version(&())
                    )
                })?;
                write(&spoke)
            }),
        });
        self
    }

    fn version(&self, api_version: &str) -> Result<&Version<H>, String> {
        self.versions
            .iter()
            .find(|v| v.api_version == api_version)
            .ok_or_else(|| {
                format!(
                    "{api_version} is not a version of {} this webhook converts (it knows {})",
                    self.kind,
                    self.versions
                        .iter()
                        .map(|v| v.api_version.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}

fn read<T: WebhookResource>(object: Value) -> Result<T, String> {
    serde_json::from_value(object).map_err(|e| {
        format!(
            "the object is not a valid {} {}: {e}",
            T::api_version(&()),
            T::kind(&())
        )
    })
}

fn write<T: WebhookResource>(object: &T) -> Result<Value, String> {
    serde_json::to_value(object)
        .map_err(|e| format!("serializing {} {}: {e}", T::api_version(&()), T::kind(&())))
}

/// One kind's conversions, its hub type erased, as the server holds them.
pub(crate) trait ConvertKind: Send + Sync {
    fn group(&self) -> &str;
    fn kind(&self) -> &str;
    fn registration_errors(&self) -> &[String];
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, String>;
}

impl<H: WebhookResource> ConvertKind for Conversion<H> {
    fn group(&self) -> &str {
        &self.group
    }

    fn kind(&self) -> &str {
        &self.kind
    }

    fn registration_errors(&self) -> &[String] {
        &self.errors
    }

    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, String> {
        let current = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .ok_or("the object has no apiVersion")?;
        let from = self.version(current)?;
        let to = self.version(desired_api_version)?;
        if from.api_version == to.api_version {
            return Ok(object);
        }
        let metadata = object.get("metadata").cloned();
        let hub = (from.to_hub)(object)?;
        let converted = (to.from_hub)(hub)?;
        let Value::Object(mut converted) = converted else {
            return Err(format!(
                "{} {} does not serialize to a JSON object",
                to.api_version, self.kind
            ));
        };
        converted.insert("apiVersion".into(), Value::String(to.api_version.clone()));
        converted.insert("kind".into(), Value::String(self.kind.clone()));
        keep_metadata(&mut converted, metadata);
        Ok(Value::Object(converted))
    }
}

/// Puts the request's metadata back on the converted object, but for labels and
/// annotations, which are the conversion's to change (the API server refuses a conversion
/// that changes any other metadata, and the Rust types may not round-trip every field of
/// it). Conversions that keep what one version cannot express in annotations thus work.
fn keep_metadata(converted: &mut Map<String, Value>, original: Option<Value>) {
    let Some(Value::Object(mut metadata)) = original else {
        return;
    };
    let changed = converted.get("metadata").and_then(Value::as_object);
    for field in ["labels", "annotations"] {
        match changed.and_then(|m| m.get(field)) {
            Some(value) if !value.is_null() => {
                metadata.insert(field.into(), value.clone());
            }
            _ => {
                metadata.remove(field);
            }
        }
    }
    converted.insert("metadata".into(), Value::Object(metadata));
}

/// All kinds converted at one path, answering a review's objects.
#[derive(Default)]
pub(crate) struct ConversionTable {
    kinds: Vec<Box<dyn ConvertKind>>,
}

impl fmt::Debug for ConversionTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.kinds
                    .iter()
                    .map(|k| format!("{} {}", k.group(), k.kind())),
            )
            .finish()
    }
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

impl ConversionTable {
    /// Adds a kind; an error when the kind is there already.
    pub(crate) fn add(&mut self, kind: Box<dyn ConvertKind>) -> Result<(), String> {
        if self
            .kinds
            .iter()
            .any(|k| k.group() == kind.group() && k.kind() == kind.kind())
        {
            return Err(format!(
                "conversion for {} {} is registered twice",
                kind.group(),
                kind.kind()
            ));
        }
        self.kinds.push(kind);
        Ok(())
    }

    pub(crate) fn kinds(&self) -> impl Iterator<Item = String> + '_ {
        self.kinds
            .iter()
            .map(|k| format!("{} {}", k.group(), k.kind()))
    }

    /// Every object converted to `desired_api_version`, or why one could not be.
    pub(crate) fn convert_all(
        &self,
        objects: Vec<Value>,
        desired_api_version: &str,
    ) -> Result<Vec<Value>, String> {
        let desired_group = group_of(desired_api_version);
        objects
            .into_iter()
            .enumerate()
            .map(|(index, object)| {
                let name = object_name(&object);
                self.convert_one(object, desired_api_version, desired_group)
                    .map_err(|e| format!("object {index}{name}: {e}"))
            })
            .collect()
    }

    fn convert_one(
        &self,
        object: Value,
        desired_api_version: &str,
        desired_group: &str,
    ) -> Result<Value, String> {
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .ok_or("the object has no kind")?;
        let group = group_of(
            object
                .get("apiVersion")
                .and_then(Value::as_str)
                .ok_or("the object has no apiVersion")?,
        );
        if group != desired_group {
            return Err(format!(
                "cannot convert group {group} to {desired_api_version}"
            ));
        }
        let converter = self
            .kinds
            .iter()
            .find(|k| k.group() == group && k.kind() == kind)
            .ok_or_else(|| format!("this webhook converts no {group} {kind}"))?;
        converter.convert(object, desired_api_version)
    }
}

/// ` (namespace/name)` for error messages, or nothing.
fn object_name(object: &Value) -> String {
    let metadata = object.get("metadata");
    let field = |name| metadata.and_then(|m| m.get(name)).and_then(Value::as_str);
    match (field("namespace"), field("name")) {
        (Some(ns), Some(name)) => format!(" ({ns}/{name})"),
        (None, Some(name)) => format!(" ({name})"),
        _ => String::new(),
    }
}
