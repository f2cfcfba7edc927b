// {{kind}} ({{api_group}}/{{version}}): a sample is admitted through its webhooks.
{
    use {{crate_ident}}::api::{{group_mod}}::{{version}}::{ {{kind}}, {{kind}}Spec };
    // Created in `namespace`, where the configurations apply (cluster-scoped kinds: anywhere).
    let api: Api<{{kind}}> = operator_runtime::controller::api(client, Some(namespace));
    let name = envtest::testing::unique_name("{{kind_lower}}");
    let sample = {{kind}}::new(&name, {{kind}}Spec::default());
    let paths = paths_for("{{api_group}}", "{{plural}}");
    let created = created_through(&api, &sample, &paths, metrics).await;
    assert_eq!(created.metadata.name.as_deref(), Some(name.as_str()));
}
