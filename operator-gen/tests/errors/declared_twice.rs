use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// One name, two declarations chosen by features: rustc builds one of them, but which one
/// depends on the build, and operator-gen reads the sources without building them.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Lamp {
    pub metadata: ObjectMeta,
    pub spec: LampSpec,
}

#[cfg(feature = "dimmer")]
#[derive(Schema)]
pub struct LampSpec {
    pub brightness: i32,
}

#[cfg(not(feature = "dimmer"))]
#[derive(Schema)]
pub struct LampSpec {
    pub on: bool,
}

pub mod parts {
    /// Another module may use the name again.
    #[derive(Schema)]
    pub struct LampSpec {
        pub watts: i32,
    }
}
