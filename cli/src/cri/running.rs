//! What the running runtime says its own configuration holds, asked on
//! the same socket as its images, so that `check` can say for certain
//! whether it runs the files' list instead of guessing from the flags:
//!
//! - CRI-O serves its configuration as TOML at the HTTP route `/config`
//!   of its socket (what `crio status config` prints): the live
//!   `[crio.image]`, whose `pinned_images` is the list its last good
//!   reload took (its pause image is pinned beside it, not in it);
//! - containerd answers the CRI `Status` call, verbose, with JSON
//!   documents in its `info` map; where one of them holds a
//!   `pinnedImages` key (a build that exposes its images configuration),
//!   that is the list it runs. containerd 1.6's has none.
//!
//! Which question is asked follows the name the runtime answered `Version`
//! with, not `--runtime`: it is the daemon on the socket that is asked.

use std::collections::{BTreeSet, HashMap};

use http_body_util::BodyExt;

use crio_pin::{Fingerprint, Flags};

use super::{messages, Client, TIMEOUT};
use crate::input::MAX_BYTES;
use crate::list::Entry;
use crate::show;

/// The list the running runtime's configuration holds, as it said.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Running {
    /// How it was asked (`GET /config`, `Status info "config"`).
    pub asked: String,
    /// Its `pinned_images`, empty entries left out as the runtime leaves
    /// them out; None when its answer has no list (an older runtime).
    pub pinned_images: Option<Vec<String>>,
    /// CRI-O's `pause_image`, which it pins beside the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_image: Option<String>,
    /// The list it compiles, as the library fingerprints it: CRI-O's
    /// `pinned_images` as it holds them (empty entries too), then its
    /// pause image, which it appends; None where the runtime does not say
    /// its list in order (containerd's map).
    #[serde(skip)]
    pub compiled: Option<Vec<String>>,
}

impl Client {
    /// What the runtime's configuration holds, or why it cannot be told
    /// (an error here is a note: the flags are still compared).
    pub fn running(&self) -> Result<Running, String> {
        match self.runtime.name.as_str() {
            "cri-o" => self.tokio.block_on(crio_config(self)).and_then(|toml| crio_list(&toml)),
            "containerd" => self.tokio.block_on(containerd_status(self)).map(|info| containerd_list(&info)),
            other => Err(format!("{other} says nothing of its configuration on its CRI socket")),
        }
    }
}

/// The running runtime's list beside the files' (JSON `running_list`):
/// the same patterns in any order (a reload that finds them keeps its
/// list), the pause image left out of both (CRI-O pins it beside the list,
/// containerd under its own key).
#[derive(serde::Serialize)]
pub struct Compared {
    /// How it was asked, or why it could not be.
    pub asked: String,
    /// The patterns it holds; null when it said none (or was not asked).
    pub patterns: Option<usize>,
    /// Whether they are the files' patterns; null when it cannot be told.
    pub same: Option<bool>,
    /// The files' patterns it does not hold.
    pub only_in_files: Vec<String>,
    /// The patterns it holds that the files do not.
    pub only_running: Vec<String>,
    /// Why it cannot be told (no list in its answer, or no answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
    /// The fingerprint of the list it compiles (`Running::compiled`) under
    /// the files' flags, and whether it is the files' list's: equal only
    /// for the same patterns in the same order, the pause image included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint_same: Option<bool>,
}

impl Compared {
    /// `files`: the fingerprint of the files' list, `flags` its flags.
    pub fn new(running: Result<Running, String>, entries: &[Entry], files: Fingerprint, flags: Flags) -> Compared {
        let running = match running {
            Ok(running) => running,
            Err(why) => return Compared::unknown("not asked".into(), why),
        };
        let Some(held) = &running.pinned_images else {
            let why = "its answer has no pinned_images, so which list it runs cannot be told".to_string();
            return Compared::unknown(running.asked, why);
        };
        let pause: BTreeSet<String> = entries
            .iter()
            .filter(|e| e.is_pause_image())
            .map(Entry::display)
            .chain(running.pause_image.clone())
            .collect();
        let patterns: BTreeSet<String> =
            entries.iter().filter(|e| !e.is_pause_image()).map(Entry::display).filter(|p| !pause.contains(p)).collect();
        let held: BTreeSet<String> = held.iter().filter(|p| !pause.contains(*p)).cloned().collect();
        let only_in_files: Vec<String> = patterns.difference(&held).cloned().collect();
        let only_running: Vec<String> = held.difference(&patterns).cloned().collect();
        let fingerprint = running.compiled.as_ref().map(|list| crio_pin::fingerprint(list, flags));
        Compared {
            asked: running.asked,
            patterns: Some(held.len()),
            same: Some(only_in_files.is_empty() && only_running.is_empty()),
            only_in_files,
            only_running,
            unknown: None,
            fingerprint: fingerprint.map(|f| f.to_string()),
            fingerprint_same: fingerprint.map(|f| f == files),
        }
    }

    fn unknown(asked: String, why: String) -> Compared {
        let nothing = Vec::new;
        Compared {
            asked,
            patterns: None,
            same: None,
            only_in_files: nothing(),
            only_running: nothing(),
            unknown: Some(why),
            fingerprint: None,
            fingerprint_same: None,
        }
    }

    /// `check`'s summary line, `runtime` as messages name it.
    pub fn line(&self, runtime: &str) -> String {
        let first = |list: &[String]| list.first().map_or(String::new(), |p| format!(", e.g. {}", show::quote(p)));
        let fingerprint = match (&self.fingerprint, self.fingerprint_same) {
            (Some(_), Some(true)) => "; the list it compiles has the files' list's fingerprint".to_string(),
            (Some(running), _) => {
                format!("; the list it compiles has the fingerprint {running}, not the files' list's")
            }
            (None, _) => String::new(),
        };
        let said = match (self.same, &self.unknown) {
            (Some(true), _) => format!(
                "its own configuration ({}) holds the files' list: {} pattern(s)",
                self.asked,
                self.patterns.unwrap_or(0)
            ),
            (Some(false), _) => format!(
                "its own configuration ({}) holds another list: {} of the files' pattern(s) missing{}, {} that \
                 the files do not have{}: the running {runtime} has not loaded the files",
                self.asked,
                self.only_in_files.len(),
                first(&self.only_in_files),
                self.only_running.len(),
                first(&self.only_running)
            ),
            (None, why) => {
                return format!(
                    "which list {runtime} runs is not known ({}): {}",
                    self.asked,
                    why.as_deref().unwrap_or("not said")
                )
            }
        };
        format!("{said}{fingerprint}")
    }
}

/// CRI-O's `GET /config`: HTTP/1.1 on its socket, bounded by `TIMEOUT`.
async fn crio_config(client: &Client) -> Result<String, String> {
    let answer = async {
        let stream = tokio::net::UnixStream::connect(&client.endpoint.path).await.map_err(|e| e.to_string())?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        let request = http::Request::get("/config")
            .header(http::header::HOST, "localhost")
            .body(http_body_util::Empty::<bytes::Bytes>::new())
            .map_err(|e| e.to_string())?;
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let status = response.status();
        let body = http_body_util::Limited::new(response.into_body(), MAX_BYTES as usize)
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        if !status.is_success() {
            return Err(format!("it answered {status}"));
        }
        String::from_utf8(body.to_vec()).map_err(|_| "its answer is not UTF-8".to_string())
    };
    match tokio::time::timeout(TIMEOUT, answer).await {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(why)) => Err(format!("GET /config on {}: {why}", client.endpoint.text)),
        Err(_) => Err(format!("GET /config on {}: no answer within {} s", client.endpoint.text, TIMEOUT.as_secs())),
    }
}

/// `[crio.image]`'s `pinned_images` and `pause_image` of CRI-O's dump.
fn crio_list(toml_text: &str) -> Result<Running, String> {
    let asked = "GET /config".to_string();
    let table: toml::Table = toml_text.parse().map_err(|e| format!("{asked}: its answer is no TOML: {e}"))?;
    let image = table.get("crio").and_then(|c| c.get("image"));
    let held: Option<Vec<String>> = image
        .and_then(|i| i.get("pinned_images"))
        .and_then(|v| v.as_array())
        .map(|values| values.iter().filter_map(|v| v.as_str()).map(str::to_owned).collect());
    let pause_image = image.and_then(|i| i.get("pause_image")).and_then(|p| p.as_str()).map(str::to_owned);
    // Its dump writes every option (`WriteTemplate` with all shown): no
    // key is an answer this cannot read, not an empty list.
    let pinned_images = held.as_ref().map(|h| h.iter().filter(|s| !s.is_empty()).cloned().collect());
    let compiled = held.zip(pause_image.clone()).map(|(mut list, pause)| {
        list.push(pause);
        list
    });
    Ok(Running { asked, pinned_images, pause_image, compiled })
}

/// containerd's verbose `Status`: its `info` map.
async fn containerd_status(client: &Client) -> Result<HashMap<String, String>, String> {
    let request = messages::StatusRequest { verbose: true };
    let answer: messages::StatusResponse =
        super::call(&client.endpoint, client.channel.clone(), messages::STATUS, request).await.map_err(|e| e.0)?;
    Ok(answer.info)
}

/// The first `pinnedImages` in the JSON documents of containerd's `info`
/// (a map of names to images, or a list), in the order of their keys.
fn containerd_list(info: &HashMap<String, String>) -> Running {
    let mut keys: Vec<&String> = info.keys().collect();
    keys.sort();
    for key in keys {
        let Ok(document) = serde_json::from_str::<serde_json::Value>(&info[key]) else { continue };
        if let Some(found) = find_key(&document, "pinnedImages") {
            let images = match found {
                serde_json::Value::Object(map) => map.values().filter_map(|v| v.as_str()).map(str::to_owned).collect(),
                serde_json::Value::Array(list) => list.iter().filter_map(|v| v.as_str()).map(str::to_owned).collect(),
                _ => Vec::new(),
            };
            let asked = format!("Status info {key:?}");
            return Running { asked, pinned_images: Some(images), pause_image: None, compiled: None };
        }
    }
    let asked =
        format!("Status info ({})", if info.is_empty() { "empty".to_string() } else { "no pinnedImages".into() });
    Running { asked, pinned_images: None, pause_image: None, compiled: None }
}

/// The value of the first `key` in `v`, depth first.
fn find_key<'v>(v: &'v serde_json::Value, key: &str) -> Option<&'v serde_json::Value> {
    match v {
        serde_json::Value::Object(map) => map.get(key).or_else(|| map.values().find_map(|v| find_key(v, key))),
        serde_json::Value::Array(items) => items.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crio_s_dump_gives_its_list_and_pause_image() {
        let dump = "[crio]\nroot = \"/var/lib/containers/storage\"\n[crio.image]\n\
                    pause_image = \"registry.k8s.io/pause:3.10.1\"\n\
                    pinned_images = [\n  \"quay.io/*\",\n  \"\",\n  \"*etcd*\",\n]\n[crio.runtime]\n";
        let running = crio_list(dump).unwrap();
        assert_eq!(running.pinned_images.unwrap(), ["quay.io/*", "*etcd*"]);
        assert_eq!(running.pause_image.as_deref(), Some("registry.k8s.io/pause:3.10.1"));
        // An empty list is none pinned; no key, nothing said.
        assert_eq!(crio_list("[crio.image]\npinned_images = []\n").unwrap().pinned_images, Some(vec![]));
        assert_eq!(crio_list("[crio.image]\npause_image = \"p:1\"\n").unwrap().pinned_images, None);
        assert!(crio_list("[crio.image\n").unwrap_err().contains("no TOML"));
    }

    #[test]
    fn containerd_s_info_gives_a_list_only_where_it_has_one() {
        let mut info = HashMap::new();
        info.insert("config".to_string(), r#"{"containerd":{"snapshotter":"native"},"sandboxImage":"p:1"}"#.into());
        assert_eq!(containerd_list(&info).pinned_images, None);
        info.insert("imageConfig".into(), r#"{"pinnedImages":{"sandbox":"p:1","mine":"quay.io/x:1"}}"#.into());
        let running = containerd_list(&info);
        assert_eq!(running.asked, "Status info \"imageConfig\"");
        let mut images = running.pinned_images.unwrap();
        images.sort();
        assert_eq!(images, ["p:1", "quay.io/x:1"]);
    }
}
