use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Rules the API server would refuse when the CRD is installed, each reported at its marker:
/// a syntax error, a field the type does not have (the rule sits on a field whose type is
/// declared below), a method on the wrong type, a rule that is no bool, and a message
/// expression that is no string.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Job {
    pub metadata: ObjectMeta,
    pub spec: JobSpec,
}

#[derive(Schema)]
pub struct JobSpec {
    #[validation(cel(rule = "self.retries >= 0 &&"))]
    pub first: Limits,
    #[validation(cel(rule = "self.retry < 10"))]
    pub second: Limits,
    #[validation(cel(rule = "self.startsWith('a')"))]
    pub count: i32,
    #[validation(cel(rule = "self.size()"))]
    pub name: String,
    #[validation(cel(rule = "self.retries < 3", message_expression = "self.retries"))]
    pub third: Limits,
}

#[derive(Schema)]
pub struct Limits {
    pub retries: i32,
}
