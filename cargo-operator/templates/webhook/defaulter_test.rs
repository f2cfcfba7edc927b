#[tokio::test]
async fn the_defaulter_leaves_a_{{kind_snake}}_as_it_is() {
    let mut obj = sample();
    let warnings = {{kind}}Defaulter
        .set_defaults(&context(Operation::Create), &mut obj)
        .await
        .unwrap();
    assert!(warnings.is_empty());
    assert_eq!(obj, sample());
}
