//! The kubelet's pull records (`KubeletEnsureSecretPulledImages`, kubelet
//! 1.33 and later), read from its root directory (`--root-dir`, usually
//! /var/lib/kubelet) as kubernetes `pkg/kubelet/images/pullmanager/`
//! keeps them: one file for each image the kubelet pulled, under
//! `image_manager/pulled/`, named `sha256-` and the hexadecimal SHA-256 of
//! the image's reference as the CRI gave it (its image ID), holding a JSON
//! `ImagePulledRecord` (`kubelet.config.k8s.io/v1alpha1`): that reference
//! (`imageRef`) and, for each repository a pod named it by
//! (`credentialMapping`, keyed by the pod's image normalised without tag or
//! digest), the credentials of the pulls: Kubernetes secrets
//! (`kubernetesSecrets`), service accounts (`kubernetesServiceAccounts`),
//! or none needed (`nodePodsAccessible`). `image_manager/pulling/` holds
//! the pulls under way (`ImagePullIntent`), which count once the image is
//! there.
//!
//! Why it matters to a pin (kubernetes issue 138175): the kubelet takes an
//! image with a pulled record as one it pulled itself, no longer preloaded.
//! Under `NeverVerifyPreloadedImages` (the default) and for an image the
//! allowlist does not cover under `NeverVerifyAllowlistedImages`, a pod
//! that names it by a repository whose credentials are not
//! `nodePodsAccessible` must then have one of the recorded secrets or
//! service accounts, or the kubelet pulls the image again to check them: a
//! pinned image one pod pulled with a secret is no longer preloaded for
//! the others. A record the kubelet cannot decode (it decodes strictly:
//! unknown fields, wrong types) makes it pull whatever the policy.
//!
//! Only the records of the images asked about are read (the file name is
//! the image's), each at most [`MAX_RECORD_BYTES`], so the reading is
//! bounded by the listing; a record that cannot be read or decoded is a
//! warning naming its file and what is wrong, never an error of the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::input;

/// A record larger than this is not read: the kubelet writes a few hundred
/// bytes a credential, and stops adding secrets to a repository's list at
/// 100 while matching.
pub const MAX_RECORD_BYTES: u64 = 1 << 20;

/// Where the kubelet keeps them: `--root-dir`'s `image_manager/pulled`.
pub struct Records {
    pulled: PathBuf,
}

/// What the records say of one image.
#[derive(Debug)]
pub enum Lookup {
    /// No record: the kubelet did not pull it (preloaded).
    None,
    Record(Record),
    /// A record the kubelet cannot read either: it pulls the image.
    Unreadable {
        file: String,
        why: String,
    },
}

/// One image's pulled record: its file and credentials by repository.
#[derive(Debug)]
pub struct Record {
    pub file: String,
    credentials: HashMap<String, Credentials>,
}

/// How a repository of the image was pulled.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Credentials {
    #[serde(default)]
    kubernetes_secrets: Vec<Secret>,
    #[serde(default)]
    kubernetes_service_accounts: Vec<ServiceAccount>,
    #[serde(default)]
    node_pods_accessible: bool,
}

/// Each field is decoded, to refuse what the kubelet's decoder refuses;
/// the coordinates are what the tool shows (a pod's secret matches by
/// them or by its credentials' hash).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct Secret {
    #[serde(default)]
    uid: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    credential_hash: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ServiceAccount {
    #[serde(default)]
    uid: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    name: String,
}

/// The file as the kubelet's strict decoder reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PulledRecordFile {
    kind: String,
    api_version: String,
    /// Decoded for its type only.
    #[serde(default)]
    #[allow(dead_code)]
    last_updated_time: Option<String>,
    #[serde(default)]
    image_ref: String,
    #[serde(default)]
    credential_mapping: HashMap<String, Credentials>,
}

/// The API versions whose `ImagePulledRecord` a kubelet decodes.
const API_VERSIONS: [&str; 2] = ["kubelet.config.k8s.io/v1alpha1", "kubelet.config.k8s.io/v1beta1"];

/// Whether a pod naming the image by one repository uses it unverified.
#[derive(Debug, PartialEq, Eq)]
pub enum Preloaded {
    /// `nodePodsAccessible`: every pod on the node may use it.
    ForEveryPod,
    /// Only pods with one of these credentials (secrets as
    /// namespace/name, service accounts as namespace/name); the others
    /// pull it again.
    OnlyWith(Vec<String>),
    /// No credentials recorded for the repository: every pod pulls it.
    ForNoPod,
}

impl Records {
    /// The records under `root_dir`, the kubelet's `--root-dir`; Err when
    /// it has no `image_manager/pulled` directory.
    pub fn open(root_dir: &str) -> Result<Records, String> {
        let pulled = Path::new(root_dir).join("image_manager").join("pulled");
        match std::fs::metadata(&pulled) {
            Ok(meta) if meta.is_dir() => Ok(Records { pulled }),
            Ok(_) => Err(format!("{} is not a directory", pulled.display())),
            Err(e) => Err(format!(
                "{}: {e}: give the kubelet's --root-dir (a kubelet 1.33 or later with \
                 KubeletEnsureSecretPulledImages on keeps its pull records there)",
                pulled.display()
            )),
        }
    }

    /// The file the kubelet keeps `image_ref`'s record in.
    pub fn file_of(&self, image_ref: &str) -> PathBuf {
        self.pulled.join(format!("sha256-{:x}", Sha256::digest(image_ref.as_bytes())))
    }

    /// The record of the image the CRI calls `image_ref`.
    pub fn lookup(&self, image_ref: &str) -> Lookup {
        let path = self.file_of(image_ref);
        let file = path.display().to_string();
        let unreadable = |why: String| Lookup::Unreadable { file: file.clone(), why };
        let meta = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Lookup::None,
            Err(e) => return unreadable(e.to_string()),
            Ok(meta) => meta,
        };
        if meta.len() > MAX_RECORD_BYTES {
            return unreadable(format!(
                "{} bytes, more than the {} KiB a pull record is read up to: not read",
                meta.len(),
                MAX_RECORD_BYTES >> 10
            ));
        }
        let bytes = match input::read_file(&path) {
            Ok(bytes) => bytes,
            Err(e) => return unreadable(e.describe()),
        };
        let record: PulledRecordFile = match serde_json::from_slice(&bytes) {
            Ok(record) => record,
            Err(e) => return unreadable(format!("not an ImagePulledRecord the kubelet decodes: {e}")),
        };
        if record.kind != "ImagePulledRecord" || !API_VERSIONS.contains(&record.api_version.as_str()) {
            return unreadable(format!(
                "kind {:?}, apiVersion {:?}: the kubelet decodes kind ImagePulledRecord of {}",
                record.kind,
                record.api_version,
                API_VERSIONS.join(" or ")
            ));
        }
        // The kubelet takes a record of another reference (a hash
        // collision, a file copied) as no record.
        if record.image_ref != image_ref {
            return Lookup::None;
        }
        Lookup::Record(Record { file, credentials: record.credential_mapping })
    }
}

impl Record {
    /// For pods that name the image by `repository` (normalised, without
    /// tag or digest), as `MustAttemptImagePull` decides once credentials
    /// are to be checked.
    pub fn preloaded(&self, repository: &str) -> Preloaded {
        let Some(c) = self.credentials.get(repository) else { return Preloaded::ForNoPod };
        if c.node_pods_accessible {
            return Preloaded::ForEveryPod;
        }
        let secrets = c.kubernetes_secrets.iter().map(|s| format!("secret {}/{}", s.namespace, s.name));
        let accounts =
            c.kubernetes_service_accounts.iter().map(|a| format!("service account {}/{}", a.namespace, a.name));
        let with: Vec<String> = secrets.chain(accounts).collect();
        if with.is_empty() {
            Preloaded::ForNoPod
        } else {
            Preloaded::OnlyWith(with)
        }
    }
}
