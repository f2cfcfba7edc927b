#[tokio::test]
async fn the_validator_admits_a_{{kind_snake}}_created_or_updated() {
    let warnings = {{kind}}Validator
        .validate_create(&context(Operation::Create), &sample())
        .await
        .unwrap();
    assert!(warnings.is_empty());
    let warnings = {{kind}}Validator
        .validate_update(&context(Operation::Update), &sample(), &sample())
        .await
        .unwrap();
    assert!(warnings.is_empty());
}
