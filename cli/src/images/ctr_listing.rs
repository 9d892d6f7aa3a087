//! `ctr -n k8s.io images ls`: containerd's image records with their labels,
//! which crictl's listing does not show. containerd pins an image whose
//! record carries `io.cri-containerd.pinned=pinned`, a label it sets when a
//! pinned_images value matches at a pull or at start-up and never removes.
//!
//! The table (cmd/ctr/commands/images/images.go, `listCommand`; seen from
//! ctr 1.6.20 on a containerd this project's tests start, and unchanged in
//! 2.x): a header `REF TYPE DIGEST SIZE PLATFORMS LABELS`, then one row a
//! record, its cells padded with blanks by a tabwriter. SIZE is two words
//! (`1.6 KiB`), PLATFORMS one (`linux/amd64,linux/arm64`, or `-`), LABELS
//! the rest of the row: `k=v` pairs sorted and joined by commas, or `-`.
//! A pull stores one record per name (the tag, the repository@digest) and
//! the CRI plugin one named by the image ID (`sha256:<config digest>`), all
//! with the same target DIGEST: the rows of one image are the rows of one
//! DIGEST.

use std::collections::HashMap;

use crate::error::InputError;
use crate::images::{self, Image, LabelDoubt, Naming};
use crate::show;

/// The labels a runtime pins by, as this reader needs them to tell a pin
/// label from a value that holds one. The runtime's module knows them
/// (containerd's `runtimes/containerd/labels.rs`) and gives them through
/// its `Naming`, so that this reader, below the runtimes, names none.
pub trait PinLabels: Sync {
    /// The label that pins: its key and value.
    fn pin(&self) -> (&'static str, &'static str);

    /// Whether the runtime, or a distribution built on it, writes
    /// `key=value` itself on the records it pins: a label no one wrote
    /// into another's value.
    fn written_by_the_runtime(&self, key: &str, value: &str) -> bool;
}

/// Whether `line` is the header of ctr's table.
pub fn is_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("REF") && words.next() == Some("TYPE") && words.next() == Some("DIGEST")
}

/// The images of a ctr listing (`text`, header included), with their
/// labels: the records of one target digest are one image.
pub fn parse(path: &str, text: &str, naming: Naming) -> Result<Vec<Image>, InputError> {
    let mut images: Vec<Records> = Vec::new();
    let mut by_digest: HashMap<String, usize> = HashMap::new();
    let mut header_seen = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if !header_seen {
            header_seen = is_header(line);
            continue;
        }
        let row = Row::read(line).map_err(|why| {
            InputError(format!(
                "{path}:{}: {why}: a row of `ctr images ls` has the columns REF TYPE DIGEST SIZE PLATFORMS \
                 LABELS; give its whole output, as ctr printed it (`ctr -n k8s.io images ls -q` lists names \
                 only: give it as names, without the header)",
                i + 1
            ))
        })?;
        let at = *by_digest.entry(row.digest.to_owned()).or_insert_with(|| {
            images.push(Records::default());
            images.len() - 1
        });
        let records = &mut images[at];
        if images::is_image_id(row.reference) {
            records.id.get_or_insert_with(|| row.reference.to_owned());
        } else if row.reference.contains('@') {
            records.digests.push(row.reference.to_owned());
        } else {
            records.tags.push(row.reference.to_owned());
        }
        let (labels, doubt) = labels(row.labels, naming.pin_labels);
        records.labels.extend(labels);
        if let Some(why) = doubt {
            records.doubts.push(LabelDoubt {
                file: path.to_owned(),
                line: i + 1,
                why: format!("{}: {why}", row.reference),
            });
        }
    }
    Ok(images
        .into_iter()
        .map(|r| {
            let mut image = images::with_labels(r.id.unwrap_or_default(), r.tags, r.digests, r.labels, naming);
            // No record named by the ID (ctr's default namespace, not the CRI's).
            image.id = image.id.filter(|id| !id.is_empty());
            image.label_doubts = r.doubts;
            image
        })
        .collect())
}

/// The records of one target digest.
#[derive(Default)]
struct Records {
    id: Option<String>,
    tags: Vec<String>,
    digests: Vec<String>,
    labels: Vec<(String, String)>,
    doubts: Vec<LabelDoubt>,
}

/// The cells of a row that say which image it is and how it is labelled.
struct Row<'l> {
    reference: &'l str,
    digest: &'l str,
    labels: &'l str,
}

impl<'l> Row<'l> {
    fn read(line: &'l str) -> Result<Row<'l>, String> {
        // REF, TYPE, DIGEST, SIZE (two words), PLATFORMS, then LABELS: the
        // rest, which may hold blanks in a value.
        let mut words = Vec::with_capacity(7);
        let mut rest = line;
        while words.len() < 6 {
            let start = rest.len() - rest.trim_start().len();
            rest = &rest[start..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            if end == 0 {
                break;
            }
            words.push(&rest[..end]);
            rest = &rest[end..];
        }
        let labels = rest.trim();
        if words.len() < 6 || labels.is_empty() {
            return Err(format!(
                "{} word(s) where there are at least 7",
                words.len() + usize::from(!labels.is_empty())
            ));
        }
        let digest = words[2];
        if !digest.split_once(':').is_some_and(|(algorithm, hex)| !algorithm.is_empty() && !hex.is_empty()) {
            return Err(format!("its DIGEST {} is no digest (algorithm:hex)", show::quote(digest)));
        }
        Ok(Row { reference: words[0], digest, labels })
    }
}

/// The labels of a LABELS cell: `-` is none; a part without `=` belongs to
/// the value before it (ctr joins the pairs with commas, which a value may
/// hold too). A part with `=` after a comma is read as a pair, but it may
/// as well be the rest of the value before it: when that decides the pin
/// label, the second is why it is in doubt. In doubt: the pin label after
/// a pair whose value containerd or k3s/rke2 did not write themselves (a
/// value `x,io.cri-containerd.pinned=pinned` pins nothing), or the pin
/// label followed by such a part (a value `pinned,a=b` is not `pinned`).
/// Read so, the image is pinned: a pin is never dropped on a guess.
fn labels(cell: &str, rules: Option<&dyn PinLabels>) -> (Vec<(String, String)>, Option<String>) {
    let mut pairs: Vec<(String, String)> = Vec::new();
    if cell == "-" {
        return (pairs, None);
    }
    for part in cell.split(',') {
        match (part.split_once('='), pairs.last_mut()) {
            (Some((key, value)), _) => pairs.push((key.to_owned(), value.to_owned())),
            (None, Some((_, value))) => {
                value.push(',');
                value.push_str(part);
            }
            (None, None) => pairs.push((part.to_owned(), String::new())),
        }
    }
    // A runtime that pins by no label has no pin label to doubt.
    let Some(rules) = rules else { return (pairs, None) };
    let (pinned_key, pinned_value) = rules.pin();
    let is_pin = |(k, v): &(String, String)| k == pinned_key && v == pinned_value;
    let written_by_the_runtime = |(k, v): &(String, String)| rules.written_by_the_runtime(k, v);
    let pin = format!("{pinned_key}={pinned_value}");
    let doubt = pairs.windows(2).find_map(|w| match (&w[0], &w[1]) {
        (before, after) if is_pin(after) && !written_by_the_runtime(before) => Some(format!(
            "the label {pin} follows {}, whose value may hold it (ctr joins the labels with commas, which a \
             value may hold too): read as pinned, which containerd does not pin if it is that value's",
            show::quote(&format!("{}={}", before.0, before.1))
        )),
        (pinned, after) if is_pin(pinned) => Some(format!(
            "the label {pin} is followed by {}, which may be the rest of its value (ctr joins the labels with \
             commas, which a value may hold too): read as pinned, which containerd does not pin if its value is \
             {}",
            show::quote(&format!("{}={}", after.0, after.1)),
            show::quote(&format!("{pinned_value},{}={}", after.0, after.1))
        )),
        _ => None,
    });
    (pairs, doubt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtimes::containerd::labels::{PinnedLabel, PINNED_KEY, PINNED_VALUE};

    fn labels(cell: &str) -> (Vec<(String, String)>, Option<String>) {
        super::labels(cell, Some(&PinnedLabel))
    }

    #[test]
    fn a_comma_that_decides_the_pin_label_is_said() {
        // What containerd and k3s write themselves: no doubt.
        for cell in [
            "io.cri-containerd.image=managed,io.cri-containerd.pinned=pinned",
            "io.cattle.k3s.pinned=pinned,io.cri-containerd.image=managed,io.cri-containerd.pinned=pinned",
            "io.cri-containerd.pinned=pinned",
            "a=x,y,b=2",
            "-",
        ] {
            assert_eq!(labels(cell).1, None, "{cell}");
        }
        // A value that may hold the pin label, or a pin label whose value
        // may go on: read as pinned, and said.
        let (read, doubt) = labels("note=see,io.cri-containerd.pinned=pinned");
        assert!(read.contains(&(PINNED_KEY.to_string(), PINNED_VALUE.to_string())));
        assert!(doubt.unwrap().contains("follows \"note=see\", whose value may hold it"));
        let (read, doubt) = labels("io.cri-containerd.pinned=pinned,zz=1");
        assert!(read.contains(&(PINNED_KEY.to_string(), PINNED_VALUE.to_string())));
        assert!(doubt.unwrap().contains("does not pin if its value is \"pinned,zz=1\""));
    }

    #[test]
    fn the_records_of_one_digest_are_one_image_with_their_labels() {
        let id = format!("sha256:{}", "0".repeat(64));
        let digest = format!("sha256:{}", "5".repeat(64));
        let text = format!(
            "REF  TYPE  DIGEST  SIZE  PLATFORMS  LABELS \n\
             docker.io/library/a:1  application/vnd.oci.image.manifest.v1+json {digest} 1.6 KiB linux/amd64 \
             io.cri-containerd.image=managed,io.cri-containerd.pinned=pinned \n\
             {id} application/vnd.oci.image.manifest.v1+json {digest} 1.6 KiB linux/amd64 \
             io.cri-containerd.image=managed \n\
             docker.io/library/b:1  application/vnd.oci.image.manifest.v1+json sha256:{} 0.0 B - - \n",
            "6".repeat(64)
        );
        let images = parse("l", &text, crate::runtime::Runtime::Containerd.model().naming()).unwrap();
        assert_eq!(images.len(), 2);
        assert_eq!(images[0].id.as_deref(), Some(id.as_str()));
        let names: Vec<&str> = images[0].names.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(names, ["docker.io/library/a:1", id.as_str()]);
        let pinned = ("io.cri-containerd.pinned".to_string(), "pinned".to_string());
        assert!(images[0].labels.as_ref().unwrap().contains(&pinned));
        assert_eq!(images[1].id, None);
        assert_eq!(images[1].labels.as_deref(), Some(&[][..]));
    }

    #[test]
    fn a_value_may_hold_commas_and_blanks() {
        assert_eq!(
            labels("a=1,b=x,y,c=two words").0,
            [("a".into(), "1".into()), ("b".into(), "x,y".into()), ("c".into(), "two words".into())]
        );
        assert!(labels("-").0.is_empty());
        assert!(Row::read("docker.io/library/a:1 application/x sha256:00").is_err());
        assert!(Row::read("a t nodigest 1 B - -").is_err());
    }
}
