//! Types of other crates that real operators use, whose wire format is known: time's
//! `OffsetDateTime` through `time::serde::rfc3339` and semver's `VersionReq`; and the
//! errors (with the way through) for the ones that have no schema of their own:
//! `OffsetDateTime` without that module, and url's `Url`.

use crate::api::apiextensions::v1::JSONSchemaProps;
use crate::diagnostics::Misfit;

/// The `with` modules of the time crate whose wire format is known, by their full path,
/// and whether the field is an `Option` (`rfc3339::option`, which writes `None` as `null`
/// and reads it back).
pub(super) fn time_rfc3339_module(module: &[String]) -> Option<bool> {
    match module {
        [time, serde, rfc3339] if time == "time" && serde == "serde" && rfc3339 == "rfc3339" => {
            Some(false)
        }
        [time, serde, rfc3339, option]
            if time == "time" && serde == "serde" && rfc3339 == "rfc3339" && option == "option" =>
        {
            Some(true)
        }
        _ => None,
    }
}

/// A `YYYY-MM-DD` date (chrono's `NaiveDate`, and the date of time's `OffsetDateTime`) of years 0 to 9999 with the calendar held in the pattern (month
/// lengths, the 29th of February in leap years only).
pub(super) const NAIVE_DATE: &str = concat!(
    "([0-9]{4}-(",
    "(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])",
    "|(0[469]|11)-(0[1-9]|[12][0-9]|30)",
    "|02-(0[1-9]|1[0-9]|2[0-8]))",
    "|([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29)"
);

/// time's `OffsetDateTime` through `time::serde::rfc3339`: RFC 3339 with a `T`, at most
/// nine digits of a second and a `Z` or an offset within a day, which time reads and
/// writes alike (checked against the time crate, see types-and-serde.md). The calendar
/// (month lengths, leap years, hours to 23, minutes and seconds to 59) is in the pattern
/// instead of a `date-time` format: the API server's type check lets any JSON list through
/// a `string` that has a `format` (kube-openapi's `typeValidator`), and time cannot read
/// one. The pattern admits what `date-time` and chrono's pattern admit together, no more.
pub(super) fn offset_date_time() -> JSONSchemaProps {
    const TIME: &str = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?";
    const OFFSET: &str = "(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";
    JSONSchemaProps {
        type_: Some("string".into()),
        pattern: Some(format!("^{NAIVE_DATE}T{TIME}{OFFSET}$")),
        ..Default::default()
    }
}

/// semver's `VersionReq` as semver 1.x reads it: `*` (or `x`, `X`) alone, or one to 32
/// comparators separated by commas, each an optional operator (`=`, `>`, `>=`, `<`, `<=`,
/// `~`, `^`) and a version with the minor and patch optional or wildcards (`1`, `1.*`,
/// `1.2.x`), a pre-release and build only after a patch number; spaces (only spaces) around
/// each part. The numbers and identifiers follow `semver::Version`'s pattern. What semver
/// writes (`^1.2.3`, `>=1.2.3, <2`, `1.*`, `*`) is in it.
pub(super) fn version_req() -> JSONSchemaProps {
    /// semver's limit on comparators in one requirement.
    const MAX_COMPARATORS: usize = 32;
    let number = super::net::decimal_up_to(u64::MAX);
    const PRE: &str = "(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)";
    const BUILD: &str = "[0-9A-Za-z-]+";
    const WILD: &str = "[*xX]";
    let version = format!(
        "{number}(\\.({WILD}(\\.{WILD})?|{number}(\\.({WILD}|{number}(-{PRE}(\\.{PRE})*)?(\\+{BUILD}(\\.{BUILD})*)?))?))?"
    );
    let comparator = format!("(=|>=?|<=?|~|\\^)? *{version} *");
    JSONSchemaProps {
        type_: Some("string".into()),
        pattern: Some(format!(
            "^ *({WILD} *|{comparator}(, *{comparator}){{0,{}}})$",
            MAX_COMPARATORS - 1
        )),
        ..Default::default()
    }
}

/// Whether a full path names time's `OffsetDateTime`.
pub(super) fn is_offset_date_time(path: &[String]) -> bool {
    matches!(path, [time, name] if time == "time" && name == "OffsetDateTime")
}

/// time's `OffsetDateTime` read and written by its own serde impl.
pub(super) fn offset_date_time_misfit() -> Misfit {
    Misfit::from(
        "time's `OffsetDateTime` is not an RFC 3339 string to its own serde impl: it writes a list of nine integers (year, day of the year, hour, minute, second, nanosecond, offset hours, minutes, seconds), or with time's `serde-human-readable` feature a string in time's own format, and which one depends on the time crate's features, which operator-gen cannot see",
    )
    .with_help(
        "add #[serde(with = \"time::serde::rfc3339\")] (`time::serde::rfc3339::option` on an `Option<OffsetDateTime>`): the field is then an RFC 3339 string, which operator-gen knows",
    )
}

/// url's `Url`.
pub(super) fn url_misfit() -> Misfit {
    Misfit::from(
        "operator-gen has no schema for url's `Url`: its serde impl writes and reads the URL as a string (`as_str()`), but the WHATWG parser it uses admits nearly anything with a scheme, so no pattern says exactly what it reads",
    )
    .with_help(
        "use a `String` field and parse it with `Url::parse` where the operator uses it, so a bad value is that object's error; or keep the type with #[schema(schemaless)] and #[validation(type = \"string\", format = \"uri\")]: the API server checks `uri` with Go's url.ParseRequestURI (and lets any JSON list through, as for any string with a format), which also admits what `Url` cannot read (`/path` without a scheme, a port above 65535) and refuses some of what it writes (a bad escape such as `%zz`, which `Url` keeps)",
    )
}

#[cfg(test)]
mod tests {

    fn generate_kind(types: &str) -> Result<crate::Generated, crate::Error> {
        crate::generate_from_texts(
            std::path::Path::new("src"),
            vec![(
                "src/lib.rs".into(),
                format!(
                    "{types}\n#[derive(CustomResource)]\n#[resource(group = \"test.example.com\", version = \"v1\")]\npub struct Thing {{ pub metadata: ObjectMeta, pub spec: ThingSpec }}\n"
                ),
            )],
            &crate::Options::default(),
        )
    }

    fn spec_schema(generated: &crate::Generated) -> serde_json::Value {
        crate::render::to_json(&generated.crds[0])["spec"]["versions"][0]["schema"]
            ["openAPIV3Schema"]["properties"]["spec"]
            .clone()
    }

    fn error_of(types: &str) -> String {
        generate_kind(types).unwrap_err().to_string()
    }

    /// time's `OffsetDateTime` through `time::serde::rfc3339`: RFC 3339 as time reads and
    /// writes it (checked against the time crate on random strings and instants, see
    /// types-and-serde.md), the calendar in the pattern.
    #[test]
    fn offset_date_time_through_rfc3339() {
        let generated = generate_kind(
            r#"
use time::OffsetDateTime;
use time::serde::rfc3339;
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    #[serde(with = "rfc3339")]
    pub since: time::OffsetDateTime,
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub until: Option<OffsetDateTime>,
    #[serde(with = "rfc3339::option")]
    pub last: Option<OffsetDateTime>,
}
"#,
        )
        .unwrap();
        let spec = spec_schema(&generated);
        // A missing `Option` read through a module is an error to serde.
        assert_eq!(spec["required"], serde_json::json!(["at", "last", "since"]));
        let properties = &spec["properties"];
        assert_eq!(properties["at"]["type"], "string");
        // No format: the API server lets any JSON list through a string with a format.
        assert!(properties["at"].get("format").is_none());
        assert_eq!(properties["since"], properties["at"]);
        // `rfc3339::option` writes `None` as null and reads it back.
        let mut nullable = properties["at"].clone();
        nullable["nullable"] = serde_json::json!(true);
        assert_eq!(properties["until"], nullable);
        assert_eq!(properties["last"], nullable);
        let pattern = regex::Regex::new(properties["at"]["pattern"].as_str().unwrap()).unwrap();
        for (at, admitted) in [
            ("2024-02-29T13:05:00Z", true),
            ("0000-01-01T00:00:00.123456789-23:59", true),
            ("9999-12-31T23:59:59.999999999+23:59", true),
            ("2023-02-29T13:05:00Z", false),
            ("2024-04-31T13:05:00Z", false),
            ("2024-02-29T24:00:00Z", false),
            ("2024-02-29T13:05:60Z", false),
            ("2024-02-29t13:05:00Z", false),
            ("2024-02-29T13:05:00z", false),
            ("2024-02-29 13:05:00Z", false),
            ("2024-02-29T13:05:00.1234567891Z", false),
            ("2024-02-29T13:05:00+24:00", false),
        ] {
            assert_eq!(pattern.is_match(at), admitted, "{at}");
        }
    }

    #[test]
    fn offset_date_time_without_rfc3339_is_refused_with_the_way_through() {
        let error = error_of(
            r#"
#[derive(Schema)]
pub struct ThingSpec { pub at: time::OffsetDateTime }
"#,
        );
        assert!(
            error.contains("src/lib.rs:3:32: error: time's `OffsetDateTime` is not an RFC 3339 string to its own serde impl"),
            "{error}"
        );
        assert!(
            error.contains("add #[serde(with = \"time::serde::rfc3339\")]"),
            "{error}"
        );
        // Another of time's modules, or rfc3339 on another type, needs markers.
        for (module, ty) in [
            ("time::serde::timestamp", "time::OffsetDateTime"),
            ("time::serde::rfc3339", "time::PrimitiveDateTime"),
            ("time::serde::rfc3339::option", "time::OffsetDateTime"),
        ] {
            let error = error_of(&format!(
                "#[derive(Schema)]\npub struct ThingSpec {{ #[serde(with = \"{module}\")] pub at: {ty} }}\n"
            ));
            assert!(
                error.contains(&format!(
                    "#[serde(with = \"{module}\")] changes how serde reads and writes this field's JSON"
                )),
                "{error}"
            );
        }
    }

    /// semver's requirements as it reads them (checked against semver's parser on random
    /// strings, see types-and-serde.md).
    #[test]
    fn version_req_as_semver_reads_it() {
        let generated = generate_kind(
            r#"
use semver::VersionReq;
#[derive(Schema)]
pub struct ThingSpec { pub range: semver::VersionReq, pub ranges: Option<Vec<VersionReq>> }
"#,
        )
        .unwrap();
        let properties = &spec_schema(&generated)["properties"];
        assert_eq!(properties["range"]["type"], "string");
        assert_eq!(properties["ranges"]["items"], properties["range"]);
        let pattern = regex::Regex::new(properties["range"]["pattern"].as_str().unwrap()).unwrap();
        let many = |n: usize| vec![">=1.2.3"; n].join(", ");
        for (req, admitted) in [
            (">=1.2.3, <2", true),
            ("^1.2", true),
            ("~1", true),
            ("*", true),
            (" x ", true),
            ("1.*", true),
            ("1.2.X", true),
            ("=1.2.3-rc.1", true),
            ("1.2.3+build.5", true),
            (" >= 1.2.3 , <2 ", true),
            ("18446744073709551615", true),
            (many(32).as_str(), true),
            (many(33).as_str(), false),
            ("", false),
            ("*, 1", false),
            (">=*", false),
            ("1.*.3", false),
            ("1.*-rc", false),
            ("1.2-rc", false),
            ("01", false),
            ("18446744073709551616", false),
            ("1.2.3-01", false),
            (">= 1.2.3,", false),
            ("> =1", false),
            ("1 2", false),
            ("\t1", false),
            ("v1", false),
        ] {
            assert_eq!(pattern.is_match(req), admitted, "{req:?}");
        }
    }

    #[test]
    fn url_is_refused_with_the_way_through() {
        let error = error_of(
            r#"
use url::Url;
#[derive(Schema)]
pub struct ThingSpec { pub home: Option<Url> }
"#,
        );
        assert!(
            error.contains("error: operator-gen has no schema for url's `Url`"),
            "{error}"
        );
        assert!(
            error.contains("Go's url.ParseRequestURI (and lets any JSON list through"),
            "{error}"
        );
        // The way through the help names goes through the generator.
        let generated = generate_kind(
            r#"
#[derive(Schema)]
pub struct ThingSpec {
    #[schema(schemaless)]
    #[validation(type = "string", format = "uri")]
    pub home: url::Url,
}
"#,
        )
        .unwrap();
        let properties = &spec_schema(&generated)["properties"];
        assert_eq!(
            properties["home"],
            serde_json::json!({"type": "string", "format": "uri"})
        );
    }
}
