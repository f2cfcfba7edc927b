//! The serde attributes that change the JSON shape of a type, read from source. Unknown
//! serde keys are skipped: they do not change names or presence of fields.

use syn::ext::IdentExt;

#[derive(Debug, Clone, Default)]
pub struct ContainerAttrs {
    pub rename_all: Option<RenameRule>,
    /// On enums: the rename rule for the fields of every struct variant.
    pub rename_all_fields: Option<RenameRule>,
    pub default: bool,
    pub transparent: bool,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
}

#[derive(Debug, Clone, Default)]
pub struct FieldAttrs {
    pub rename: Option<String>,
    pub skip_serializing: bool,
    pub skip_deserializing: bool,
    pub default: bool,
    pub flatten: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// Renames a struct field (written in snake_case), as serde does.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_string(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            // serde's camelCase is its PascalCase with the first character lowered, so
            // `_leading` is `leading` (not `Leading`); both change ASCII letters only.
            Self::Pascal | Self::Camel => {
                let mut out = String::new();
                let mut upper = true;
                for c in field.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        out.push(c.to_ascii_uppercase());
                        upper = false;
                    } else {
                        out.push(c);
                    }
                }
                if self == Self::Camel
                    && let Some(first) = out.chars().next()
                {
                    out.replace_range(..first.len_utf8(), &first.to_ascii_lowercase().to_string());
                }
                out
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// Renames an enum variant (written in PascalCase), as serde does.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_string(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => {
                let mut c = variant.chars();
                c.next()
                    .map(|f| std::iter::once(f.to_ascii_lowercase()).chain(c).collect())
                    .unwrap_or_default()
            }
            Self::Snake | Self::ScreamingSnake | Self::Kebab | Self::ScreamingKebab => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                match self {
                    Self::Snake => snake,
                    Self::ScreamingSnake => snake.to_ascii_uppercase(),
                    Self::Kebab => snake.replace('_', "-"),
                    _ => snake.to_ascii_uppercase().replace('_', "-"),
                }
            }
        }
    }
}

fn for_each_serde_arg(
    attrs: &[syn::Attribute],
    mut f: impl FnMut(&str, &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()>,
) -> syn::Result<()> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.unraw().to_string())
                .unwrap_or_default();
            f(&key, &meta)?;
            // Consume whatever value the handler left.
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                content.parse::<proc_macro2::TokenStream>()?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

fn lit_str(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        let lit: syn::LitStr = meta.value()?.parse()?;
        Ok(Some(lit.value()))
    } else {
        Ok(None)
    }
}

/// `rename = "x"` or `rename(serialize = "x", deserialize = "y")`: the deserialize name wins,
/// because a CRD schema validates what clients send.
fn rename_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if let Some(v) = lit_str(meta)? {
        return Ok(Some(v));
    }
    let mut found = None;
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            let v = lit_str(&inner)?;
            if inner.path.is_ident("deserialize") || found.is_none() {
                found = v;
            }
            Ok(())
        })?;
    }
    Ok(found)
}

/// The value of `rename_all`-like `key`, as a rule.
fn rename_rule(
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Option<RenameRule>> {
    let Some(rule) = rename_value(meta)? else {
        return Ok(None);
    };
    RenameRule::parse(&rule)
        .map(Some)
        .ok_or_else(|| meta.error(format!("unknown {key} rule `{rule}`")))
}

pub fn container_attrs(attrs: &[syn::Attribute]) -> syn::Result<ContainerAttrs> {
    let mut out = ContainerAttrs::default();
    for_each_serde_arg(attrs, |key, meta| {
        match key {
            "rename_all" => out.rename_all = rename_rule(meta, key)?,
            "rename_all_fields" => out.rename_all_fields = rename_rule(meta, key)?,
            "default" => out.default = true,
            "transparent" => out.transparent = true,
            "untagged" => out.untagged = true,
            "tag" => out.tag = lit_str(meta)?,
            "content" => out.content = lit_str(meta)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(out)
}

pub fn field_attrs(attrs: &[syn::Attribute]) -> syn::Result<FieldAttrs> {
    let mut out = FieldAttrs::default();
    for_each_serde_arg(attrs, |key, meta| {
        match key {
            "rename" => out.rename = rename_value(meta)?,
            "skip" => {
                out.skip_serializing = true;
                out.skip_deserializing = true;
            }
            "skip_serializing" => out.skip_serializing = true,
            "skip_deserializing" => out.skip_deserializing = true,
            "default" => out.default = true,
            "flatten" => out.flatten = true,
            _ => {}
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    const FIELDS: [&str; 7] = [
        "a",
        "two_words",
        "http_2_port",
        "trailing_",
        "_leading",
        "many__underscores",
        "x_y_z",
    ];

    /// Our renaming of every field and variant against serde's own, for one rule: serde is
    /// the oracle. (ASCII names only: serde_derive 1.0.229 panics on non-ASCII names under
    /// camelCase.)
    macro_rules! same_as_serde {
        ($rule:tt) => {{
            #[derive(Serialize, Default)]
            #[serde(rename_all = $rule)]
            #[allow(non_snake_case)]
            struct Fields {
                a: u8,
                two_words: u8,
                http_2_port: u8,
                trailing_: u8,
                _leading: u8,
                many__underscores: u8,
                x_y_z: u8,
            }
            #[derive(Serialize)]
            #[serde(rename_all = $rule)]
            #[allow(clippy::upper_case_acronyms)]
            enum Variants {
                A,
                TwoWords,
                HTTPServer,
                Http2Port,
                XYZ,
            }
            let rule = RenameRule::parse($rule).expect($rule);
            let theirs = serde_json::to_value(Fields::default()).unwrap();
            let mut theirs: Vec<&String> = theirs.as_object().unwrap().keys().collect();
            let ours: Vec<String> = FIELDS.iter().map(|f| rule.apply_to_field(f)).collect();
            let mut ours: Vec<&String> = ours.iter().collect();
            theirs.sort();
            ours.sort();
            assert_eq!(ours, theirs, "fields, {}", $rule);
            for (variant, name) in [
                (Variants::A, "A"),
                (Variants::TwoWords, "TwoWords"),
                (Variants::HTTPServer, "HTTPServer"),
                (Variants::Http2Port, "Http2Port"),
                (Variants::XYZ, "XYZ"),
            ] {
                let theirs = serde_json::to_value(&variant).unwrap();
                assert_eq!(
                    rule.apply_to_variant(name),
                    theirs.as_str().unwrap(),
                    "{name}, {}",
                    $rule
                );
            }
        }};
    }

    #[test]
    fn rename_rules_name_fields_and_variants_as_serde_does() {
        same_as_serde!("lowercase");
        same_as_serde!("UPPERCASE");
        same_as_serde!("PascalCase");
        same_as_serde!("camelCase");
        same_as_serde!("snake_case");
        same_as_serde!("SCREAMING_SNAKE_CASE");
        same_as_serde!("kebab-case");
        same_as_serde!("SCREAMING-KEBAB-CASE");
    }

    fn attrs(text: &str) -> Vec<syn::Attribute> {
        syn::parse::Parser::parse_str(syn::Attribute::parse_outer, text).unwrap()
    }

    #[test]
    fn container_attributes_are_read_and_the_rest_skipped() {
        let c = container_attrs(&attrs(
            r#"#[serde(deny_unknown_fields, rename_all = "camelCase", tag = "kind", content = "spec")]
               #[serde(default, bound(serialize = "T: Serialize"), rename_all_fields = "kebab-case")]
               #[derive(Debug)]"#,
        ))
        .unwrap();
        assert_eq!(c.rename_all, Some(RenameRule::Camel));
        assert_eq!(c.rename_all_fields, Some(RenameRule::Kebab));
        assert_eq!(c.tag.as_deref(), Some("kind"));
        assert_eq!(c.content.as_deref(), Some("spec"));
        assert!(c.default && !c.transparent && !c.untagged);
        let c = container_attrs(&attrs("#[serde(transparent)] #[serde(untagged)]")).unwrap();
        assert!(c.transparent && c.untagged && c.rename_all.is_none());
        // `rename_all(serialize = ..., deserialize = ...)`: the names clients send count.
        let c = container_attrs(&attrs(
            r#"#[serde(rename_all(serialize = "UPPERCASE", deserialize = "snake_case"))]"#,
        ))
        .unwrap();
        assert_eq!(c.rename_all, Some(RenameRule::Snake));
        let err = container_attrs(&attrs(r#"#[serde(rename_all = "Title Case")]"#)).unwrap_err();
        assert_eq!(err.to_string(), "unknown rename_all rule `Title Case`");
    }

    #[test]
    fn field_attributes_are_read_and_the_rest_skipped() {
        let f = field_attrs(&attrs(
            r#"#[serde(rename = "x", default = "path::to", skip_serializing_if = "Option::is_none")]"#,
        ))
        .unwrap();
        assert_eq!(f.rename.as_deref(), Some("x"));
        assert!(f.default && !f.skip_serializing && !f.skip_deserializing && !f.flatten);
        let f = field_attrs(&attrs(
            r#"#[serde(rename(serialize = "out", deserialize = "in"), flatten)]"#,
        ))
        .unwrap();
        assert_eq!(f.rename.as_deref(), Some("in"));
        assert!(f.flatten);
        let f = field_attrs(&attrs(r#"#[serde(rename(serialize = "out"))]"#)).unwrap();
        assert_eq!(f.rename.as_deref(), Some("out"));
        let f = field_attrs(&attrs("#[serde(skip)]")).unwrap();
        assert!(f.skip_serializing && f.skip_deserializing);
        let f = field_attrs(&attrs("#[serde(skip_deserializing)] #[doc = \"x\"]")).unwrap();
        assert!(!f.skip_serializing && f.skip_deserializing);
        assert!(field_attrs(&attrs("#[serde(rename = 1)]")).is_err());
    }
}
