//! The few messages of CRI v1 (package `runtime.v1` of the kubelet's
//! Container Runtime Interface) that `check` exchanges, derived with prost
//! by hand from their wire field numbers: only the fields read here (prost
//! skips the others: an image's size, uid, username, spec). The tests' fake
//! CRI server answers with the same messages (`cli/tests/check.rs`).

/// `RuntimeService/Version`'s request: the CRI version the caller speaks.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VersionRequest {
    #[prost(string, tag = "1")]
    pub version: String,
}

/// Who answers: the runtime's name and version, and its CRI version.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VersionResponse {
    #[prost(string, tag = "1")]
    pub version: String,
    #[prost(string, tag = "2")]
    pub runtime_name: String,
    #[prost(string, tag = "3")]
    pub runtime_version: String,
    #[prost(string, tag = "4")]
    pub runtime_api_version: String,
}

/// `ImageService/ListImages`'s request; its only field, a filter, is left
/// out: every image.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListImagesRequest {}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ListImagesResponse {
    #[prost(message, repeated, tag = "1")]
    pub images: Vec<Image>,
}

/// An image as the runtime lists it, as `crictl images -o json` prints it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Image {
    #[prost(string, tag = "1")]
    pub id: String,
    #[prost(string, repeated, tag = "2")]
    pub repo_tags: Vec<String>,
    #[prost(string, repeated, tag = "3")]
    pub repo_digests: Vec<String>,
    /// What the kubelet's garbage collection reads: false when the runtime
    /// does not pin it, and from a runtime older than the field (proto3
    /// sends no false, so the two look the same on the wire).
    #[prost(bool, tag = "8")]
    pub pinned: bool,
}

/// `RuntimeService/Status`'s request: verbose asks for the `info` map.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusRequest {
    #[prost(bool, tag = "1")]
    pub verbose: bool,
}

/// Its answer: only `info` is read (the conditions are left out), the
/// runtime's own documents by name (containerd: JSON, its CRI `config`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusResponse {
    #[prost(map = "string, string", tag = "2")]
    pub info: std::collections::HashMap<String, String>,
}

/// The methods' paths, as gRPC names them.
pub const VERSION: &str = "/runtime.v1.RuntimeService/Version";
pub const LIST_IMAGES: &str = "/runtime.v1.ImageService/ListImages";
pub const STATUS: &str = "/runtime.v1.RuntimeService/Status";
