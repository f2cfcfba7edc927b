//! The YAML writer's tests: layout as go-yaml writes it, and every value read back by
//! serde_yaml as it was written (examples, and property tests over arbitrary strings).

use super::*;
use serde_json::{Value, json};

#[test]
fn natural_order_puts_digits_numerically_and_symbols_first() {
    let mut keys = vec!["b", "a10", "a2", "x-kubernetes-list-type", "A", "$ref", "a"];
    keys.sort_by(|a, b| natural_cmp(a, b));
    assert_eq!(
        keys,
        vec!["$ref", "A", "a", "a2", "a10", "b", "x-kubernetes-list-type"]
    );
}

#[test]
fn layout_matches_go_yaml() {
    let doc = json!({
        "kind": "X",
        "list": ["a", {"k": 1, "j": [true]}],
        "empty": {},
        "none": [],
        "text": "line one\nline two",
        "num": "124",
        "flag": "true",
        "bang": "!has(self.x)",
        "colon": "a: b",
        "float": 1.5,
    });
    let yaml = to_yaml_stream(&[Node::from(&doc)]);
    assert_eq!(
        yaml,
        "---\nbang: '!has(self.x)'\ncolon: 'a: b'\nempty: {}\nflag: \"true\"\nfloat: 1.5\nkind: X\nlist:\n- a\n- j:\n  - true\n  k: 1\nnone: []\nnum: \"124\"\ntext: |-\n  line one\n  line two\n"
    );
}

#[test]
fn plain_words_take_the_style_the_full_rules_give() {
    for word in [
        "type",
        "x-kubernetes-list-type",
        "v1",
        "apps/v1",
        "a.b",
        "int32",
        "e5",
        "Yes",
        "yes",
        "NO",
        "n",
        "nul",
        "null",
        "On",
        "off",
        "True",
        "inf",
        "nan",
        "a_b",
        "Z",
    ] {
        let plain = choose_style(word, true) == Style::Plain;
        assert_eq!(is_plain_word(word), plain, "{word}");
        assert_eq!(choose_style(word, false) == Style::Plain, plain, "{word}");
    }
    for not_a_word in [
        "", "1", "-a", ".inf", "a b", "a:b", "a#b", "é", "a\nb", "~", "<<",
    ] {
        assert!(!is_plain_word(not_a_word), "{not_a_word}");
    }
}

#[test]
fn long_plain_strings_fold_after_column_80() {
    let doc = json!({"description": "Condition contains details for one aspect of the current state of this API Resource."});
    let yaml = to_yaml_stream(&[Node::from(&doc)]);
    assert_eq!(
        yaml,
        "---\ndescription: Condition contains details for one aspect of the current state of this\n  API Resource.\n"
    );
}

#[test]
fn output_parses_back_to_the_same_value() {
    let doc = json!({
        "a": "it's: quoted", "b": "#hash", "c": "- dash", "d": "tab\there", "e": "",
        "f": "0x1F", "g": "1e3", "h": "1:20", "i": "null", "j": " lead", "k": "multi\n\nline\n",
        "l": -3, "m": 0.25, "n": null, "o": ["x", ["y", "z"]], "p": "ünïcode",
        "q": "a very long string that keeps going and going past the eighty column limit of the emitter, surely",
    });
    let yaml = to_yaml_stream(&[Node::from(&doc)]);
    let back: Value = serde_yaml::from_str(&yaml).expect("valid YAML");
    assert_eq!(back, doc, "{yaml}");
}

#[cfg(test)]
mod found_by_the_property_tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn each_case_reads_back_as_written() {
        let long_key = "word ".repeat(20);
        for doc in [
            // A key past column 80 was folded, and YAML ends a key at the line break.
            json!({ long_key.clone(): "" }),
            // "\n" became an empty literal block, which reads as "".
            json!({ "k": "\n" }),
            // A literal block cannot start with a tab (its indentation comes from that line).
            json!({ "k": "\t%\n" }),
            json!({ "k": "x\n\n  indented" }),
            // U+2028 and U+2029 are line breaks to YAML 1.1.
            json!({ "\u{2028}": "a\u{2029}b" }),
            // A fold next to a tab dropped the tab.
            json!({ long_key: ",a[\t 0 and more words to fold past the end of the line" }),
        ] {
            let yaml = to_yaml_stream(&[Node::from(&doc)]);
            let back: Value = serde_yaml::from_str(&yaml).expect("valid YAML");
            assert_eq!(back, doc, "{yaml}");
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Strings heavy in what YAML gives meaning to, and any Unicode at all.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[ a-z0-9:#'\"\\-\\n\\t\\r{}\\[\\],&*!|>%@`?~.]{0,40}",
            any::<String>(),
            // Long words and spaces, to cross the folding column.
            "([a-z]{1,12} ){5,20}[a-z]{0,12}",
        ]
    }

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            text().prop_map(Value::String),
            any::<i64>().prop_map(Value::from),
            any::<bool>().prop_map(Value::Bool),
            (-1e6f64..1e6).prop_map(Value::from),
            Just(Value::Null),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map(text(), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(crate::test_cases(2000))]

        /// Whatever the strings, serde_yaml reads back exactly the value that was written.
        #[test]
        fn any_string_round_trips_through_serde_yaml(key in text(), value in text()) {
            let doc = serde_json::json!({ key.clone(): value.clone(), "nested": [{ "k": value }] });
            let yaml = to_yaml_stream(&[Node::from(&doc)]);
            let back: Value = serde_yaml::from_str(&yaml).map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
            prop_assert_eq!(back, doc, "{}", yaml);
        }

        #[test]
        fn any_document_round_trips_through_serde_yaml(doc in json()) {
            let doc = serde_json::json!({ "doc": doc });
            let yaml = to_yaml_stream(&[Node::from(&doc)]);
            let back: Value = serde_yaml::from_str(&yaml).map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
            prop_assert_eq!(back, doc, "{}", yaml);
        }
    }
}
