
// {{spoke}} to and from the hub {{version}}.

impl From<{{spoke}}::{{kind}}> for {{version}}::{{kind}} {
    fn from(obj: {{spoke}}::{{kind}}) -> Self {
        Self {
            metadata: obj.metadata,
            spec: obj.spec.into(),
            status: obj.status.map(Into::into),
        }
    }
}

impl From<{{version}}::{{kind}}> for {{spoke}}::{{kind}} {
    fn from(obj: {{version}}::{{kind}}) -> Self {
        Self {
            metadata: obj.metadata,
            spec: obj.spec.into(),
            status: obj.status.map(Into::into),
        }
    }
}

impl From<{{spoke}}::{{kind}}Spec> for {{version}}::{{kind}}Spec {
    fn from(spec: {{spoke}}::{{kind}}Spec) -> Self {
        Self { foo: spec.foo }
    }
}

impl From<{{version}}::{{kind}}Spec> for {{spoke}}::{{kind}}Spec {
    fn from(spec: {{version}}::{{kind}}Spec) -> Self {
        Self { foo: spec.foo }
    }
}

impl From<{{spoke}}::{{kind}}Status> for {{version}}::{{kind}}Status {
    fn from(status: {{spoke}}::{{kind}}Status) -> Self {
        Self {
            observed_generation: status.observed_generation,
            conditions: status.conditions,
        }
    }
}

impl From<{{version}}::{{kind}}Status> for {{spoke}}::{{kind}}Status {
    fn from(status: {{version}}::{{kind}}Status) -> Self {
        Self {
            observed_generation: status.observed_generation,
            conditions: status.conditions,
        }
    }
}
