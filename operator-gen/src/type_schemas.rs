//! The schema of each type that derives `Schema`, on its own: what `operator-derive`
//! returns from `schemars::JsonSchema::json_schema`, so the types plug into schemars-based
//! tools with the very schema the CRDs carry.
//!
//! A type's own schema is what a field of that type carries in a CRD before the field's
//! markers and doc comment apply: the type's doc comment, serde shape and type-level
//! markers, with the crate's options (`max-desc-len`, `allow-dangerous-types`). Generic
//! types have no schema of their own (a CRD field always names a concrete type), so they
//! are left out. A root kind's (`#[derive(CustomResource)]`) is its version's
//! `openAPIV3Schema`, also for a version the CRD skips.

use std::path::PathBuf;

use crate::api::apiextensions::v1::JSONSchemaProps;

use crate::model::{Body, Reads};
use crate::schema::{SchemaBuilder, Types};
use crate::source::{self, Input, Sources};
use crate::{Error, LocatedError, Options};

/// One type that derives `Schema` or `CustomResource`, and its schema.
#[derive(Debug, Clone)]
pub struct TypeSchema {
    /// The file that declares it, as it was read.
    pub file: PathBuf,
    /// Line (1-based) of the type's name.
    pub line: usize,
    /// Module path inside the crate.
    pub module: Vec<String>,
    /// The type's name.
    pub name: String,
    /// Whether the type derives schemars' `JsonSchema` as well; the derive then leaves the
    /// impl to it instead of writing a second, conflicting one.
    pub derives_json_schema: bool,
    /// Whether it is a root kind.
    pub kind: bool,
    /// The schema, or every problem found while building it.
    pub schema: Result<JSONSchemaProps, Vec<LocatedError>>,
}

/// The schemas of the types under `paths` that derive `Schema` (and the root kinds), in file and declaration
/// order. Syntax errors fail the whole call; a type whose schema cannot be built carries
/// its own errors.
pub fn type_schemas(paths: &[PathBuf], options: &Options) -> Result<Vec<TypeSchema>, Error> {
    let inputs = source::read_inputs(paths)?;
    type_schemas_of(&inputs, options)
}

/// [`type_schemas`] of files already read.
pub fn type_schemas_of(inputs: &[Input], options: &Options) -> Result<Vec<TypeSchema>, Error> {
    // The front half the pipeline runs, for the types alone (what a CRD build reads).
    let reads = Reads {
        each_crd: true,
        ..Reads::default()
    };
    let mut syntax = Vec::new();
    let mut twice = Vec::new();
    let mut summaries = Vec::with_capacity(inputs.len());
    let mut defs = Vec::new();
    for (no, input) in inputs.iter().enumerate() {
        match input.parse() {
            Ok(file) => {
                let facts = crate::lower::lower_file(no, &file, reads);
                summaries.push(facts.summary);
                defs.extend(facts.lowered.types);
                twice.extend(facts.twice);
            }
            Err(e) => syntax.push(e),
        }
    }
    if !syntax.is_empty() {
        return Err(Error::invalid(syntax));
    }
    if !twice.is_empty() {
        return Err(Error::invalid(twice));
    }
    let skeleton = crate::lower::index(summaries, &mut defs);
    let instances = typed_arena::Arena::new();
    let types = Types {
        skeleton: &skeleton,
        defs: &defs,
        instances: &instances,
    };
    let sources = Sources::new(inputs);
    let mut out = Vec::new();
    for (id, def) in defs.iter().enumerate() {
        let kind = def.derives("CustomResource");
        if matches!(def.body, Body::Alias(_))
            || !(kind || def.derives("Schema"))
            || def.generics.is_some()
        {
            continue;
        }
        // A builder per type, so each type's problems are its own (nested types are built
        // again for each user; the derive asks once per crate).
        let mut builder = SchemaBuilder::new(types, options);
        let schema = if kind {
            builder.root_schema(id)
        } else {
            builder.declared_schema(id)
        };
        let problems = sources.located(builder.problems.into_vec());
        let schema = match schema {
            Some(mut schema) if problems.is_empty() => {
                if let Some(max) = options.max_desc_len {
                    crate::crd::truncate_schema_descriptions(&mut schema, max);
                }
                Ok(schema)
            }
            _ => {
                let mut problems = problems;
                problems.sort();
                problems.dedup();
                Err(problems)
            }
        };
        let info = &skeleton.decls[id];
        out.push(TypeSchema {
            file: inputs[info.file].path.clone(),
            line: def.at.line as usize,
            module: info.module.clone(),
            name: def.name.clone(),
            derives_json_schema: def.derives("JsonSchema"),
            kind,
            schema,
        });
    }
    Ok(out)
}

pub use crate::source::derives;

#[cfg(test)]
mod tests {
    use super::*;

    fn schemas(text: &str, options: &Options) -> Vec<TypeSchema> {
        let inputs = vec![Input {
            path: "src/lib.rs".into(),
            root: "src".into(),
            text: text.into(),
        }];
        type_schemas_of(&inputs, options).unwrap()
    }

    const API: &str = r#"
/// Spec of a widget.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// How many.
    #[validation(minimum = 1)]
    pub replica_count: i32,
    pub mode: Mode,
}

/// How a widget runs.
#[derive(Schema, schemars::JsonSchema)]
pub enum Mode { Fast, Slow }

#[derive(Schema)]
pub struct Generic<T> { pub value: T }

pub struct NotDerived { pub x: f64 }

#[derive(Schema)]
pub struct Floaty { pub ratio: f64 }

#[derive(CustomResource)]
#[resource(group = "x.example.com", version = "v1")]
pub struct Widget { pub metadata: ObjectMeta, pub spec: WidgetSpec }
"#;

    /// Only the types that derive `Schema`, not generic ones; their schemas are built as a
    /// CRD field of that type would carry them; a type that cannot have a schema carries
    /// its errors; `JsonSchema` derived beside `Schema` is seen.
    #[test]
    fn schemas_of_the_types_that_derive_schema() {
        let found = schemas(API, &Options::default());
        let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["WidgetSpec", "Mode", "Floaty", "Widget"]);
        let kind = serde_json::to_value(found[3].schema.as_ref().unwrap()).unwrap();
        assert!(found[3].kind && !found[0].kind);
        assert_eq!(
            kind["properties"]["spec"]["properties"]["replicaCount"]["minimum"],
            1.0
        );
        assert!(kind["properties"]["apiVersion"].is_object(), "{kind}");
        let spec = found[0].schema.as_ref().unwrap();
        let json = serde_json::to_value(spec).unwrap();
        assert_eq!(json["description"], "Spec of a widget.");
        assert_eq!(json["properties"]["replicaCount"]["minimum"], 1.0);
        assert_eq!(
            json["properties"]["mode"]["enum"],
            serde_json::json!(["Fast", "Slow"])
        );
        assert_eq!(
            json["required"],
            serde_json::json!(["mode", "replicaCount"])
        );
        assert_eq!((found[0].line, found[0].derives_json_schema), (5, false));
        assert!(found[1].derives_json_schema);
        let errors = found[2].schema.as_ref().unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].message.contains("f64"), "{}", errors[0].message);

        let allowed = schemas(
            API,
            &Options {
                allow_dangerous_types: true,
                max_desc_len: Some(0),
                ..Options::default()
            },
        );
        assert!(allowed[2].schema.is_ok());
        // max-desc-len applies as it does to the CRDs.
        let spec = serde_json::to_value(allowed[0].schema.as_ref().unwrap()).unwrap();
        assert!(spec.get("description").is_none(), "{spec}");
    }
}
