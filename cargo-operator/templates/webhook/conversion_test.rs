#[test]
fn a_{{kind_snake}}_converted_to_{{spoke}}_and_back_is_unchanged() {
    let spoke = {{spoke}}::{{kind}}::from(hub());
    assert_eq!(spoke.metadata, hub().metadata);
    assert_eq!({{version}}::{{kind}}::from(spoke), hub());
}
