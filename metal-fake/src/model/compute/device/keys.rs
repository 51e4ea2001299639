//! The SSH keys a device got at create (`GET /devices/{id}/ssh-keys`): the
//! ones its create chose (the project's and the user's, or those named),
//! as the keys are now; a key deleted since is no longer listed.

use crate::call::{ApiError, Call};
use crate::model::render::{contains_ignoring_case, reply};
use crate::model::resource::{acts, Prepared};
use crate::model::ssh_key::SshKeyList;

/// `findDeviceSSHKeys`; `Search string` matches a key's label or key,
/// ignoring case.
pub(super) fn find_device_ssh_keys(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let search = call.text("Search string");
    acts(move |w, _, _| {
        let d = w.device_for_read(id)?;
        let ssh_keys = d
            .live
            .ssh_keys
            .iter()
            .filter_map(|k| w.ssh_keys.get(k))
            .filter(|k| {
                search.as_deref().is_none_or(|s| {
                    contains_ignoring_case(&k.rec.label, s) || contains_ignoring_case(&k.rec.key, s)
                })
            })
            .map(|k| w.ssh_key_view(k))
            .collect();
        reply(&SshKeyList { ssh_keys })
    })
}
