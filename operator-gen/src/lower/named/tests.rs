//! Values named by the validation crates' attributes, read from the crate's items: each
//! form that resolves puts the item's value into the CRD, each that does not is an error
//! at the key that names it.

use std::path::{Path, PathBuf};

/// The CRDs of `files` (`(module file under src/, text)`), the first holding `types` and
/// the kind `Thing` of spec `ThingSpec`, or the error as text.
fn generate(files: &[(&str, &str)]) -> Result<crate::Generated, String> {
    let texts: Vec<(PathBuf, String)> = files
        .iter()
        .enumerate()
        .map(|(i, (name, text))| {
            let text = if i == 0 {
                format!(
                    "{text}\n#[derive(CustomResource)]\n#[resource(group = \"test.example.com\", version = \"v1\")]\npub struct Thing {{ pub metadata: ObjectMeta, pub spec: ThingSpec }}\n"
                )
            } else {
                text.to_string()
            };
            (PathBuf::from(format!("src/{name}.rs")), text)
        })
        .collect();
    crate::generate_from_texts(Path::new("src"), texts, &crate::Options::default())
        .map_err(|e| e.to_string())
}

/// The spec's property `field` in the CRD of `files`.
fn property(files: &[(&str, &str)], field: &str) -> serde_json::Value {
    let generated = generate(files).unwrap_or_else(|e| panic!("{e}"));
    crate::render::to_json(&generated.crds[0])["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        ["properties"]["spec"]["properties"][field]
        .clone()
}

/// The pattern the CRD of one file `text` gives the spec's field `version`.
fn pattern_of(text: &str) -> serde_json::Value {
    property(&[("lib", text)], "version")["pattern"].clone()
}

/// The error generating one file `text` gives.
fn error_of(text: &str) -> String {
    match generate(&[("lib", text)]) {
        Ok(_) => panic!("no error for:\n{text}"),
        Err(e) => e,
    }
}

const SEMVER: &str = r"^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$";

#[test]
fn validators_old_regex_string_names_a_lazy_static() {
    // validator <= 0.16: `regex = "..."` names the regex; the CRD carries its pattern, not
    // the name.
    let text = r#"
use lazy_static::lazy_static;
use regex::Regex;
lazy_static! {
    /// The versions we accept.
    pub static ref SEMVER_RE: Regex = Regex::new(r"^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$").unwrap();
    static ref OTHER: Regex = Regex::new("^x$").unwrap();
}
#[derive(Schema, Validate)]
pub struct ThingSpec {
    #[validate(regex = "SEMVER_RE")]
    pub version: String,
}
"#;
    assert_eq!(pattern_of(text), SEMVER);
}

#[test]
fn each_way_of_holding_a_regex_is_read() {
    let cases = [
        // once_cell's Lazy, validator 0.17+'s `regex(path = *RE)`.
        r#"
static RE: once_cell::sync::Lazy<regex::Regex> =
    once_cell::sync::Lazy::new(|| regex::Regex::new("^v[0-9]+$").expect("a valid regex"));
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *RE, message = "not a version"))] pub version: String }
"#,
        // std's LazyLock with a block and a raw string, the path written in a string.
        r##"
use std::sync::LazyLock;
static RE: LazyLock<Regex> = LazyLock::new(|| { Regex::new(r#"^v[0-9]+$"#).unwrap() });
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = "*crate::RE"))] pub version: String }
"##,
        // a const pattern compiled in the static, `Lazy` imported.
        r#"
use once_cell::sync::Lazy;
const PAT: &str = "^v[0-9]+$";
static RE: Lazy<Regex> = Lazy::new(|| Regex::new(PAT).unwrap());
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = RE))] pub version: String }
"#,
        // concat! of literals.
        r#"
static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(concat!("^v", "[0-9]+", "$")).unwrap());
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *RE))] pub version: String }
"#,
        // garde's `pattern(RE)`.
        r#"
static RE: Lazy<Regex> = Lazy::new(|| Regex::new("^v[0-9]+$").unwrap());
#[derive(Schema, garde::Validate)]
pub struct ThingSpec { #[garde(pattern(RE))] pub version: String }
"#,
        // schemars 1.x's `regex(pattern = RE)` (its `to_string()`), a `&str` const.
        r#"
pub const VERSION: &str = "^v[0-9]+$";
#[derive(Schema, JsonSchema)]
pub struct ThingSpec { #[schemars(regex(pattern = VERSION))] pub version: String }
"#,
        // schemars 1.x's `pattern(RE)`, a RegexBuilder without options, through a const.
        r#"
const P: &str = V;
const V: &str = "^v[0-9]+$";
static RE: LazyLock<Regex> = LazyLock::new(|| RegexBuilder::new(P).build().unwrap());
#[derive(Schema, JsonSchema)]
pub struct ThingSpec { #[schemars(pattern(&*RE))] pub version: String }
"#,
        // lazy_regex.
        r#"
static RE: Lazy<Regex> = lazy_regex!("^v[0-9]+$");
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex = "RE")] pub version: String }
"#,
    ];
    for text in cases {
        assert_eq!(pattern_of(text), "^v[0-9]+$", "{text}");
    }
}

#[test]
fn a_regex_of_another_module_is_found_through_the_imports() {
    let spec = r#"
use crate::re::{SEMVER, self};
#[derive(Schema, Validate)]
pub struct ThingSpec {
    #[validate(regex(path = *SEMVER))]
    pub version: String,
    #[validate(regex(path = *re::TAG))]
    pub tag: String,
    #[validate(regex = "crate::re::inner::DIGEST")]
    pub digest: String,
    #[garde(pattern(crate::LOCAL))]
    pub local: String,
}
static LOCAL: Lazy<Regex> = Lazy::new(|| Regex::new("^l$").unwrap());
"#;
    let re = r#"
pub use self::inner::SEMVER;
pub static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-z]+$").unwrap());
pub mod inner {
    lazy_static::lazy_static! {
        pub static ref SEMVER: regex::Regex = regex::Regex::new("^v[0-9]+$").unwrap();
        pub static ref DIGEST: regex::Regex = regex::Regex::new("^sha256:[0-9a-f]{64}$").unwrap();
    }
}
"#;
    let files = [("lib", spec), ("re", re)];
    assert_eq!(property(&files, "version")["pattern"], "^v[0-9]+$");
    assert_eq!(property(&files, "tag")["pattern"], "^[a-z]+$");
    assert_eq!(
        property(&files, "digest")["pattern"],
        "^sha256:[0-9a-f]{64}$"
    );
    assert_eq!(property(&files, "local")["pattern"], "^l$");
}

#[test]
fn a_literal_is_the_pattern_where_the_crate_reads_it_as_one() {
    // schemars' `regex(pattern = "...")`, garde's and schemars 1.x's `pattern("...")`.
    for text in [
        r#"#[derive(Schema)] pub struct ThingSpec { #[schemars(regex(pattern = "^v[0-9]+$"))] pub version: String }"#,
        r#"#[derive(Schema)] pub struct ThingSpec { #[garde(pattern("^v[0-9]+$"))] pub version: String }"#,
        r#"#[derive(Schema)] pub struct ThingSpec { #[schemars(pattern("^v[0-9]+$"))] pub version: String }"#,
        // `regex = "..."` whose text is no Rust path can only be a pattern.
        r#"#[derive(Schema)] pub struct ThingSpec { #[validate(regex = "^v[0-9]+$")] pub version: String }"#,
    ] {
        assert_eq!(pattern_of(text), "^v[0-9]+$", "{text}");
    }
}

#[test]
fn a_name_that_names_nothing_is_never_a_pattern() {
    // The user's case: `SEMVER_RE` is also a valid regular expression, matching only itself.
    let error = error_of(
        r#"
#[derive(Schema, Validate)]
pub struct ThingSpec {
    #[validate(regex = "SEMVER_RE")]
    pub version: String,
}
"#,
    );
    assert!(
        error.contains("src/lib.rs:4:16: error: #[validate(regex)] names `SEMVER_RE`, and the scanned sources declare no `static`, `const` or `lazy_static!` item by that name"),
        "{error}"
    );
    assert!(
        error.contains("help: name a `static`, `const` or `lazy_static!` item of the crate")
            && error.contains("#[validation(pattern = \"...\")]"),
        "{error}"
    );
}

#[test]
fn a_regex_built_at_run_time_is_refused_at_its_key() {
    let cases = [
        (
            r#"
static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^{}$", NAME)).unwrap());
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *RE))] pub version: String }
"#,
            "#[validate(regex)] names `RE`, and `RE` (a `static` in the crate root) holds the macro `format!`",
        ),
        (
            r#"
static RE: Lazy<Regex> = Lazy::new(build_regex);
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *RE))] pub version: String }
"#,
            "holds a call to `build_regex`",
        ),
        (
            r#"
static RE: Lazy<Regex> = Lazy::new(|| RegexBuilder::new("^v$").case_insensitive(true).build().unwrap());
#[derive(Schema)]
pub struct ThingSpec { #[garde(pattern(RE))] pub version: String }
"#,
            "holds a `RegexBuilder` with options",
        ),
        (
            r#"
fn version_regex() -> Regex { Regex::new("^v$").unwrap() }
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = version_regex()))] pub version: String }
"#,
            "the regular expression `version_regex()` is Rust code",
        ),
        (
            r#"
use other_crate::patterns::VERSION;
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *VERSION))] pub version: String }
"#,
            "names `VERSION`, which is `other_crate::patterns::VERSION` of another crate",
        ),
        (
            r#"
#[cfg(feature = "strict")]
static RE: Lazy<Regex> = Lazy::new(|| Regex::new("^v[0-9]+$").unwrap());
#[cfg(not(feature = "strict"))]
static RE: Lazy<Regex> = Lazy::new(|| Regex::new("^v").unwrap());
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *RE))] pub version: String }
"#,
            "the crate root declares `RE` more than once (under #[cfg]s)",
        ),
        (
            r#"
const LIMIT: u32 = 3;
static RE: Lazy<Regex> = Lazy::new(|| Regex::new(LIMIT).unwrap());
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *RE))] pub version: String }
"#,
            "builds a regular expression from a number",
        ),
        (
            r#"
static RE: Lazy<Regex> = Lazy::new(|| Regex::new("[unclosed").unwrap());
#[derive(Schema, Validate)]
pub struct ThingSpec { #[validate(regex(path = *RE))] pub version: String }
"#,
            "whose pattern \"[unclosed\" is not a valid regular expression",
        ),
    ];
    for (text, expected) in cases {
        let error = error_of(text);
        assert!(error.contains(expected), "{expected}\n{error}");
        assert!(error.contains("= help: "), "{error}");
    }
    // A path in `regex(path = "...")` must be a path.
    let error = error_of(
        r#"#[derive(Schema)] pub struct ThingSpec { #[validate(regex(path = "^v[0-9]+$"))] pub version: String }"#,
    );
    assert!(error.contains("and `^v[0-9]+$` is not a path"), "{error}");
}

#[test]
fn a_validation_pattern_says_what_an_unreadable_regex_says() {
    // Today's rule: the marker states the regex in a literal, and the regex is not read.
    for regex in ["regex(path = *UNKNOWN)", "regex(path = build())"] {
        let text = format!(
            "#[derive(Schema, Validate)]\npub struct ThingSpec {{\n    #[validate({regex})]\n    #[validation(pattern = \"^v[0-9]+$\")]\n    pub version: String,\n}}\n"
        );
        assert_eq!(pattern_of(&text), "^v[0-9]+$", "{text}");
    }
    // Two regular expressions from two attributes are one too many.
    let error = error_of(
        r#"
static RE: Lazy<Regex> = Lazy::new(|| Regex::new("^v$").unwrap());
#[derive(Schema, Validate)]
pub struct ThingSpec {
    #[validate(regex(path = *RE))]
    #[schemars(regex(pattern = "^w$"))]
    pub version: String,
}
"#,
    );
    assert!(
        error.contains("`pattern` is given twice for this field"),
        "{error}"
    );
    // So are two minimums, one of them named.
    let error = error_of(
        r#"
const MIN: i32 = 1;
#[derive(Schema, Validate)]
pub struct ThingSpec {
    #[validate(range(min = MIN))]
    #[validation(minimum = 2)]
    pub replicas: i32,
}
"#,
    );
    assert!(
        error.contains("`minimum` is given twice for this field"),
        "{error}"
    );
}

#[test]
fn bounds_and_lengths_named_by_path_read_their_const() {
    let text = r#"
pub mod limits {
    pub const MIN_REPLICAS: i32 = 1;
    pub const MAX_REPLICAS: i32 = -(-10);
    pub const NAME_MAX: usize = 63;
}
use limits::*;
#[derive(Schema, Validate)]
pub struct ThingSpec {
    #[validate(range(min = MIN_REPLICAS, max = "limits::MAX_REPLICAS", message = "out of range"))]
    pub replicas: i32,
    #[garde(length(chars, min = 1, max = NAME_MAX))]
    pub name: String,
    #[validate(range(max = u16::MAX))]
    pub port: i32,
    #[schemars(title = TITLE)]
    pub titled: String,
}
const TITLE: &str = concat!("A ", "title");
"#;
    let files = [("lib", text)];
    let replicas = property(&files, "replicas");
    assert_eq!(replicas["minimum"], 1);
    assert_eq!(replicas["maximum"], 10);
    let name = property(&files, "name");
    assert_eq!(name["minLength"], 1);
    assert_eq!(name["maxLength"], 63);
    assert_eq!(property(&files, "port")["maximum"], 65535);
    assert_eq!(property(&files, "titled")["title"], "A title");
}

/// Named bounds are checked against each other, and against written ones, once read: a
/// range no value fits is an error at a marker (once, even where both bounds are written).
#[test]
fn named_bounds_that_leave_no_value_are_refused_once_read() {
    let cases = [
        (
            "const MIN: i32 = 10;\nconst MAX: i32 = 5;\n#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(range(min = MIN, max = MAX))]\n    pub n: i32,\n}\n",
            "src/lib.rs:5:33: error: conflicting markers: `minimum` (10) is greater than `maximum` (5)",
        ),
        (
            "const MAX: usize = 3;\n#[derive(Schema)]\npub struct ThingSpec {\n    #[garde(length(chars, min = 4, max = MAX))]\n    pub s: String,\n}\n",
            "conflicting markers: `min_length` (4) is greater than `max_length` (3)",
        ),
        (
            "const LIMIT: i32 = 7;\n#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(range(exclusive_min = LIMIT, max = 7))]\n    pub n: i32,\n}\n",
            "conflicting markers: with `minimum` and `maximum` both 7, `exclusive_minimum` leaves no value allowed",
        ),
    ];
    for (text, expected) in cases {
        let error = error_of(text);
        assert!(error.contains(expected), "{expected}\n{error}");
        assert_eq!(error.matches("conflicting markers").count(), 1, "{error}");
    }
    // A written length is checked too (it becomes minLength or minItems by the type).
    let error = error_of(
        "#[derive(Schema)]\npub struct ThingSpec {\n    #[garde(length(min = 2, max = 1))]\n    pub v: Vec<i32>,\n}\n",
    );
    assert!(
        error.contains("conflicting markers: `min_items` (2) is greater than `max_items` (1)"),
        "{error}"
    );
    assert_eq!(error.matches("conflicting markers").count(), 1, "{error}");
    // Written on both sides, the conflict was reported when the markers were read: not twice.
    let error = error_of(
        "const TITLE: &str = \"t\";\n#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(range(min = 3, max = 2))]\n    #[schemars(title = TITLE)]\n    pub n: i32,\n}\n",
    );
    assert_eq!(error.matches("conflicting markers").count(), 1, "{error}");
    // Named bounds that leave values are kept.
    let files = [(
        "lib",
        "const LO: i32 = 2;\nconst HI: i32 = 2;\n#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(range(min = LO, max = HI))]\n    pub n: i32,\n}\n",
    )];
    let n = property(&files, "n");
    assert_eq!(
        (n["minimum"].clone(), n["maximum"].clone()),
        (2.into(), 2.into())
    );
}

#[test]
fn a_bound_that_is_not_a_readable_number_is_refused_at_its_key() {
    let cases = [
        (
            "const MIN: i32 = 2 * 3;\n#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(range(min = MIN))]\n    pub n: i32,\n}\n",
            "src/lib.rs:4:22: error: #[validate(range(min))] names `MIN`, and `MIN` (a `const` in the crate root) holds `2*3`",
        ),
        (
            "#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(range(min = limit()))]\n    pub n: i32,\n}\n",
            "src/lib.rs:3:22: error: the bound `limit()` is Rust code",
        ),
        (
            "#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(length(max = MAX_LEN))]\n    pub s: String,\n}\n",
            "src/lib.rs:3:23: error: #[validate(length(max))] names `MAX_LEN`, and the scanned sources declare no",
        ),
        (
            "const MIN: &str = \"one\";\n#[derive(Schema)]\npub struct ThingSpec {\n    #[validate(range(min = \"MIN\"))]\n    pub n: i32,\n}\n",
            "#[validate(range(min))] names `MIN`, which holds a string, not a number",
        ),
        (
            "const MAX: i32 = -1;\n#[derive(Schema)]\npub struct ThingSpec {\n    #[garde(length(max = MAX))]\n    pub s: String,\n}\n",
            "names `MAX`, which holds -1: a length is a whole number of 0 or more",
        ),
    ];
    for (text, expected) in cases {
        let error = error_of(text);
        assert!(error.contains(expected), "{expected}\n{error}");
        assert!(
            error.contains("help: write the bound as a number literal"),
            "{error}"
        );
    }
}

#[test]
fn value_items_are_read_as_written() {
    use crate::source::Value;
    let file = crate::source::parse_text(
        "src/lib.rs".as_ref(),
        "src".as_ref(),
        r#"
const _: () = { };
const N: i64 = -5;
static S: &str = concat!("a", 'b', 1);
static P: &str = other::P;
static R: Lazy<Regex> = Lazy::new(|| Regex::new("x").unwrap());
lazy_static! { static ref L: Regex = Regex::new(PAT).unwrap(); pub static ref M: u8 = 3 }
static C: Lazy<Regex> = Lazy::new(|| compute());
mod inner { pub const I: u8 = 1; }
"#
        .into(),
    )
    .unwrap();
    let summary = crate::source::summarize(&file);
    let values: Vec<(String, &str, Value)> = summary
        .values
        .into_iter()
        .map(|v| {
            (
                format!("{}::{}", v.module.join("::"), v.name),
                v.what,
                v.value,
            )
        })
        .collect();
    let path = |s: &[&str]| Value::Path {
        absolute: false,
        segments: s.iter().map(ToString::to_string).collect(),
    };
    assert_eq!(
        values,
        [
            ("::N".into(), "const", Value::Number((-5).into())),
            ("::S".into(), "static", Value::Str("ab1".into())),
            ("::P".into(), "static", path(&["other", "P"])),
            (
                "::R".into(),
                "static",
                Value::Regex(Box::new(Value::Str("x".into())))
            ),
            (
                "::L".into(),
                "lazy_static!",
                Value::Regex(Box::new(path(&["PAT"])))
            ),
            ("::M".into(), "lazy_static!", Value::Number(3.into())),
            (
                "::C".into(),
                "static",
                Value::Code("a call to `compute`".into())
            ),
            ("inner::I".into(), "const", Value::Number(1.into())),
        ]
    );
}
