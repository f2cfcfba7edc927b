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
            Self::Pascal | Self::Camel => {
                let mut out = String::new();
                let mut upper = self == Self::Pascal;
                for c in field.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        out.extend(c.to_uppercase());
                        upper = false;
                    } else {
                        out.push(c);
                    }
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
                    .map(|f| f.to_lowercase().chain(c).collect())
                    .unwrap_or_default()
            }
            Self::Snake | Self::ScreamingSnake | Self::Kebab | Self::ScreamingKebab => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.extend(ch.to_lowercase());
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
