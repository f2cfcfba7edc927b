use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}

#[derive(Schema)]
pub struct ThingSpec {
    pub mixed: Mixed,
    pub tuple: Tuple,
    pub loose: Loose,
    pub tagged: Tagged,
    pub clash: Clash,
    pub marked: Marked,
    pub partly: Partly,
}

/// Strings and objects in one enum: not structural.
#[derive(Schema)]
pub enum Mixed {
    Off,
    On { level: i32 },
}

#[derive(Schema)]
pub enum Tuple {
    Pair(i32, i32),
}

/// A unit variant of an untagged enum is null.
#[derive(Schema)]
#[serde(untagged)]
pub enum Loose {
    Named { name: String },
    Nothing,
}

/// An internally tagged newtype variant must carry a struct.
#[derive(Schema)]
#[serde(tag = "type")]
pub enum Tagged {
    Text(String),
}

/// Two variants give `size` different types.
#[derive(Schema)]
#[serde(tag = "type")]
pub enum Clash {
    Small { size: i32 },
    Large { size: String },
}

#[derive(Schema)]
pub enum Marked {
    #[validation(min_length = 1)]
    Name(String),
}

/// One variant untagged in a tagged enum: two representations at once.
#[derive(Schema)]
#[serde(tag = "type")]
pub enum Partly {
    Named { name: String },
    #[serde(untagged)]
    Other { value: String },
}
