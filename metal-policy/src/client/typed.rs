//! The [`Metal`] methods: thin callers of the generated builders through
//! the one call path, plus each operation's own recovery rule (the witness
//! of `create_device`, the SSH key lookup, the 404 rule of deletes, the
//! state checks of power and move).

use async_trait::async_trait;
use futures::stream::{BoxStream, TryStreamExt};
use metal_api::operation as op;
use metal_api::{types, DeviceState};
use uuid::Uuid;

use super::call::{Attempt, CallOptions, Failure, Named};
use super::pages::{Bounds, Pager};
use super::Client;
use crate::error::{AttemptError, Error};
use crate::metal::{DeviceFilter, DeviceQuery, Fields, KeyOwner, Metal};
use crate::retry::decision::Idempotency;

/// The prefix of the witness tag `create_device` adds to the request.
pub const WITNESS_TAG_PREFIX: &str = "wrapngo-idempotency-";

/// The `hardware_reservation_id` that lets the API choose the reservation.
pub const NEXT_AVAILABLE: &str = "next-available";

/// A call the client makes idempotent itself.
fn idempotent(operation: &'static metal_api::Operation) -> Option<Named> {
    Some(Named {
        operation,
        idempotency: Idempotency::Idempotent,
    })
}

/// Whether the device's state is one of `states`.
async fn device_is_in(
    at: &Attempt<'_>,
    id: Uuid,
    states: &[DeviceState],
) -> Result<bool, AttemptError> {
    let d = at.reply(at.api.find_device_by_id().id(id).send().await)?;
    Ok(d.state_kind().is_some_and(|s| states.contains(&s)))
}

/// Who holds a hardware reservation, as `create_device` sees it.
enum Holder {
    Nobody,
    Ours(Box<types::Device>),
    Theirs(Option<Uuid>),
}

/// Reads the reservation with its device included (so the device's tags
/// are there, not an href stub) and checks the device for our witness.
async fn reservation_holder(
    at: &Attempt<'_>,
    reservation: Uuid,
    witness: &str,
) -> Result<Holder, AttemptError> {
    let hr = at.reply(
        at.api
            .find_hardware_reservation_by_id()
            .id(reservation)
            .include("device")
            .send()
            .await,
    )?;
    Ok(match hr.device {
        None => Holder::Nobody,
        Some(d) if d.tags.iter().any(|t| t == witness) => Holder::Ours(d),
        Some(d) => Holder::Theirs(d.id),
    })
}

/// Our device, found by its witness tag in the project's device list
/// (`?tag=`, every page; the tag is checked here too, so a server that
/// ignored the filter would cost more pages, not a wrong answer). The
/// search is bounded as a list is ([`Pager`]).
async fn device_tagged(
    at: &Attempt<'_>,
    project: Uuid,
    witness: &str,
    (per_page, max_entries): (u32, usize),
) -> Result<Option<types::Device>, Failure> {
    let mut pager = Pager::new(&op::FIND_PROJECT_DEVICES, max_entries);
    loop {
        let list = at.reply(
            at.api
                .find_project_devices()
                .id(project)
                .tag(witness)
                .page(pager.page())
                .per_page(per_page)
                .send()
                .await,
        )?;
        let (devices, more) = pager
            .take(list.devices, list.meta.as_ref(), |d| d.id)
            .map_err(Failure::Final)?;
        if let Some(d) = devices
            .into_iter()
            .find(|d| d.tags.iter().any(|t| t == witness))
        {
            return Ok(Some(d));
        }
        if !more {
            return Ok(None);
        }
    }
}

/// What a create request asks for: a reservation by ID, or whichever the
/// API chooses.
enum Wanted {
    Reservation(Uuid),
    NextAvailable,
}

fn reservation_of(request: &types::CreateDeviceRequest) -> &str {
    match request {
        types::CreateDeviceRequest::MetroInput(m) => &m.hardware_reservation_id,
        types::CreateDeviceRequest::FacilityInput(f) => &f.hardware_reservation_id,
    }
}

fn with_tag(request: &types::CreateDeviceRequest, tag: &str) -> types::CreateDeviceRequest {
    let mut body = request.clone();
    match &mut body {
        types::CreateDeviceRequest::MetroInput(m) => m.tags.push(tag.to_string()),
        types::CreateDeviceRequest::FacilityInput(f) => f.tags.push(tag.to_string()),
    }
    body
}

fn same_key(a: Option<&str>, b: Option<&str>) -> bool {
    a.map(str::trim) == b.map(str::trim)
}

/// What the owner's keys say about a key we want under `label`.
enum KeyLookup {
    /// The same label and key: that key.
    Found(types::SshKey),
    /// The label holds another key.
    Conflict(Option<Uuid>),
    /// No key has the label.
    Absent,
}

async fn lookup_key(
    at: &Attempt<'_>,
    owner: KeyOwner,
    label: &str,
    key: Option<&str>,
) -> Result<KeyLookup, AttemptError> {
    let keys = match owner {
        KeyOwner::User => at.reply(at.api.find_ssh_keys().send().await)?,
        KeyOwner::Project(p) => at.reply(at.api.find_project_ssh_keys().id(p).send().await)?,
    };
    // `GET /ssh-keys` also lists the keys of the user's projects (as the
    // real API does): a user key is one whose entity is not a project.
    let owned = |k: &types::SshKey| match owner {
        KeyOwner::User => !k
            .entity
            .as_ref()
            .is_some_and(|e| e.href.contains("/projects/")),
        KeyOwner::Project(_) => true,
    };
    Ok(
        match keys
            .ssh_keys
            .into_iter()
            .find(|k| owned(k) && k.label.as_deref() == Some(label))
        {
            Some(k) if same_key(k.key.as_deref(), key) => KeyLookup::Found(k),
            Some(k) => KeyLookup::Conflict(k.id),
            None => KeyLookup::Absent,
        },
    )
}

impl Client {
    /// A project's devices that pass `filter`, page by page.
    fn filtered_device_pages(
        &self,
        project: Uuid,
        filter: DeviceFilter,
    ) -> BoxStream<'_, Result<Vec<types::Device>, Error>> {
        self.query_device_pages(project, &DeviceQuery::new().filter(filter))
    }

    /// A project's devices as `query` selects them, page by page.
    fn queried_device_pages(
        &self,
        project: Uuid,
        query: DeviceQuery,
    ) -> BoxStream<'_, Result<Vec<types::Device>, Error>> {
        let bounds = Bounds {
            per_page: query.per_page,
            max_pages: query.max_pages,
        };
        let (include, exclude) = (query.fields.include_param(), query.fields.exclude_param());
        let filter = query.filter;
        self.pages_bounded(
            &op::FIND_PROJECT_DEVICES,
            bounds,
            move |api, page, per_page| {
                let mut b = api
                    .find_project_devices()
                    .id(project)
                    .page(page)
                    .per_page(per_page);
                if let Some(t) = &filter.tag {
                    b = b.tag(t.clone());
                }
                if let Some(h) = &filter.hostname {
                    b = b.hostname(h.clone());
                }
                if let Some(i) = &include {
                    b = b.include(i.clone());
                }
                if let Some(e) = &exclude {
                    b = b.exclude(e.clone());
                }
                b.send()
            },
            |l: types::DeviceList| (l.devices, l.meta),
            |d| d.id,
        )
    }

    /// `create_device` on whichever reservation the API chooses. The
    /// reservation is not known before the reply, so the witness cannot be
    /// read through it: after an attempt whose outcome is unknown, the
    /// device is looked up by its witness tag in the project's device list
    /// before creating again. "None available" ends the call at once.
    async fn create_next_available(
        &self,
        project: Uuid,
        body: &types::CreateDeviceRequest,
        witness: &str,
    ) -> Result<types::Device, Error> {
        let bounds = (self.inner.per_page, self.inner.max_list_entries);
        self.run(
            idempotent(&op::CREATE_DEVICE),
            CallOptions::default(),
            |at| async move {
                if at.after_unknown
                    && let Some(d) = device_tagged(&at, project, witness, bounds).await?
                {
                    return Ok(d);
                }
                match at.reply(
                    at.api
                        .create_device()
                        .id(project)
                        .body(body.clone())
                        .send()
                        .await,
                ) {
                    Ok(d) => Ok(d),
                    Err(AttemptError::NoReservationAvailable { messages }) => {
                        Err(Failure::Final(Error::NoReservationAvailable { messages }))
                    }
                    Err(e) => Err(e.into()),
                }
            },
        )
        .await
    }

    /// Sends a delete, retried as idempotent: a 404 on an attempt after one
    /// whose outcome was unknown means that attempt deleted it, so it is
    /// success; a 404 on the first attempt is an error.
    async fn delete<'a, F, Fut>(&'a self, send_delete: F) -> Result<(), Error>
    where
        F: Fn(&'a metal_api::Client) -> Fut,
        Fut: std::future::Future<
            Output = Result<metal_api::ResponseValue<()>, metal_api::Error<types::Error>>,
        >,
    {
        self.run(None, CallOptions::default(), |at| {
            let reply = send_delete(at.api);
            async move {
                match at.reply(reply.await) {
                    Ok(()) => Ok(()),
                    Err(AttemptError::Rejected { status: 404, .. }) if at.after_unknown => Ok(()),
                    Err(e) => Err(e.into()),
                }
            }
        })
        .await
    }

    /// Runs a device action that is safe to repeat once its effect is
    /// checked: after an unknown outcome, reads the device first and
    /// succeeds if it is already in one of `done` states.
    async fn power(
        &self,
        id: Uuid,
        action: types::DeviceActionInputType,
        done: &'static [DeviceState],
    ) -> Result<(), Error> {
        self.run(
            idempotent(&op::PERFORM_ACTION),
            CallOptions::default(),
            |at| async move {
                if at.after_unknown && device_is_in(&at, id, done).await? {
                    return Ok(());
                }
                let body = types::DeviceActionInput::builder().type_(action);
                match at.reply(at.api.perform_action().id(id).body(body).send().await) {
                    Ok(()) => Ok(()),
                    // The API refuses to power off a device that is off
                    // (422 "Device must be powered on"): already so is done.
                    Err(AttemptError::Rejected {
                        status: status @ (409 | 422),
                        messages,
                    }) => {
                        if device_is_in(&at, id, done).await? {
                            Ok(())
                        } else {
                            Err(AttemptError::Rejected { status, messages }.into())
                        }
                    }
                    Err(e) => Err(e.into()),
                }
            },
        )
        .await
    }
}

#[async_trait]
impl Metal for Client {
    async fn get_project(&self, id: Uuid) -> Result<types::Project, Error> {
        self.call(|api| api.find_project_by_id().id(id).send())
            .await
    }

    async fn get_device(&self, id: Uuid, fields: &Fields) -> Result<types::Device, Error> {
        let (include, exclude) = (fields.include_param(), fields.exclude_param());
        self.call(|api| {
            let mut b = api.find_device_by_id().id(id);
            if let Some(i) = include.clone() {
                b = b.include(i);
            }
            if let Some(e) = exclude.clone() {
                b = b.exclude(e);
            }
            b.send()
        })
        .await
    }

    async fn list_devices(&self, project: Uuid) -> Result<Vec<types::Device>, Error> {
        let pages: Vec<Vec<types::Device>> = self.device_pages(project).try_collect().await?;
        Ok(pages.into_iter().flatten().collect())
    }

    fn device_pages(&self, project: Uuid) -> BoxStream<'_, Result<Vec<types::Device>, Error>> {
        self.filtered_device_pages(project, DeviceFilter::default())
    }

    async fn list_devices_matching(
        &self,
        project: Uuid,
        filter: &DeviceFilter,
    ) -> Result<Vec<types::Device>, Error> {
        let pages: Vec<Vec<types::Device>> = self
            .filtered_device_pages(project, filter.clone())
            .try_collect()
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    fn query_device_pages(
        &self,
        project: Uuid,
        query: &DeviceQuery,
    ) -> BoxStream<'_, Result<Vec<types::Device>, Error>> {
        self.queried_device_pages(project, query.clone())
    }

    async fn create_device(
        &self,
        project: Uuid,
        request: &types::CreateDeviceRequest,
    ) -> Result<types::Device, Error> {
        let wanted = match reservation_of(request).trim() {
            NEXT_AVAILABLE => Wanted::NextAvailable,
            text => Wanted::Reservation(text.parse().map_err(|_| Error::NoReservation)?),
        };
        // One witness per logical call, on every attempt; the caller's
        // request is cloned, never changed.
        let witness = format!("{WITNESS_TAG_PREFIX}{}", Uuid::new_v4());
        let body = with_tag(request, &witness);
        let reservation = match wanted {
            Wanted::Reservation(r) => r,
            Wanted::NextAvailable => {
                return self.create_next_available(project, &body, &witness).await
            }
        };
        let race_lost = |device| {
            Failure::Final(Error::RaceLost {
                reservation,
                device,
            })
        };
        self.run(
            idempotent(&op::CREATE_DEVICE),
            CallOptions::default(),
            |at| {
                let body = body.clone();
                let witness = witness.clone();
                async move {
                    // A first attempt creates at once: nothing of ours can
                    // be on the reservation yet, and a reservation someone
                    // else holds refuses the create (409/422), read below.
                    // After an attempt whose outcome is unknown, our
                    // device may be there already: look before creating.
                    if at.after_unknown {
                        match reservation_holder(&at, reservation, &witness).await? {
                            Holder::Ours(d) => return Ok(*d),
                            Holder::Theirs(device) => return Err(race_lost(device)),
                            Holder::Nobody => {}
                        }
                    }
                    match at.reply(at.api.create_device().id(project).body(body).send().await) {
                        Ok(d) => Ok(d),
                        // Refused: the reservation is taken (by someone
                        // else, or by an earlier attempt of ours still in
                        // flight when we looked), or the request is bad.
                        // One read tells which.
                        Err(AttemptError::Rejected {
                            status: status @ (409 | 422),
                            messages,
                        }) => match reservation_holder(&at, reservation, &witness).await? {
                            Holder::Ours(d) => Ok(*d),
                            Holder::Theirs(device) => Err(race_lost(device)),
                            Holder::Nobody => {
                                Err(AttemptError::Rejected { status, messages }.into())
                            }
                        },
                        Err(e) => Err(e.into()),
                    }
                }
            },
        )
        .await
    }

    async fn update_device(
        &self,
        id: Uuid,
        update: &types::DeviceUpdateInput,
    ) -> Result<types::Device, Error> {
        self.call(|api| api.update_device().id(id).body(update.clone()).send())
            .await
    }

    async fn reboot_device(&self, id: Uuid) -> Result<(), Error> {
        self.call(|api| {
            api.perform_action()
                .id(id)
                .body(
                    types::DeviceActionInput::builder().type_(types::DeviceActionInputType::Reboot),
                )
                .send()
        })
        .await
    }

    async fn power_on_device(&self, id: Uuid) -> Result<(), Error> {
        const DONE: &[DeviceState] = &[DeviceState::Active, DeviceState::PoweringOn];
        self.power(id, types::DeviceActionInputType::PowerOn, DONE)
            .await
    }

    async fn power_off_device(&self, id: Uuid) -> Result<(), Error> {
        const DONE: &[DeviceState] = &[DeviceState::Inactive, DeviceState::PoweringOff];
        self.power(id, types::DeviceActionInputType::PowerOff, DONE)
            .await
    }

    async fn delete_device(&self, id: Uuid) -> Result<(), Error> {
        self.delete(|api| api.delete_device().id(id).force_delete(false).send())
            .await
    }

    async fn list_reservations(
        &self,
        project: Uuid,
    ) -> Result<Vec<types::HardwareReservation>, Error> {
        let pages: Vec<Vec<types::HardwareReservation>> = self
            .pages(
                &op::FIND_PROJECT_HARDWARE_RESERVATIONS,
                move |api, page, per_page| {
                    api.find_project_hardware_reservations()
                        .id(project)
                        .page(page)
                        .per_page(per_page)
                        .include(metal_api::csv(["facility", "device"]))
                        .send()
                },
                |l: types::HardwareReservationList| (l.hardware_reservations, l.meta),
                |r| r.id,
            )
            .try_collect()
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    async fn get_reservation(&self, id: Uuid) -> Result<types::HardwareReservation, Error> {
        self.call(|api| {
            api.find_hardware_reservation_by_id()
                .id(id)
                .include("device")
                .send()
        })
        .await
    }

    async fn move_reservation(
        &self,
        id: Uuid,
        project: Uuid,
    ) -> Result<types::HardwareReservation, Error> {
        self.run(
            idempotent(&op::MOVE_HARDWARE_RESERVATION),
            CallOptions::default(),
            |at| async move {
                if at.after_unknown {
                    let hr =
                        at.reply(at.api.find_hardware_reservation_by_id().id(id).send().await)?;
                    if hr.project.as_ref().and_then(|p| p.id) == Some(project) {
                        return Ok(hr);
                    }
                }
                let body = types::MoveHardwareReservationRequest::builder().project_id(project);
                Ok(at.reply(
                    at.api
                        .move_hardware_reservation()
                        .id(id)
                        .body(body)
                        .send()
                        .await,
                )?)
            },
        )
        .await
    }

    async fn list_ssh_keys(&self, owner: KeyOwner) -> Result<Vec<types::SshKey>, Error> {
        let list = match owner {
            KeyOwner::User => self.call(|api| api.find_ssh_keys().send()).await?,
            KeyOwner::Project(p) => {
                self.call(|api| api.find_project_ssh_keys().id(p).send())
                    .await?
            }
        };
        Ok(list.ssh_keys)
    }

    async fn get_ssh_key(&self, id: Uuid) -> Result<types::SshKey, Error> {
        self.call(|api| api.find_ssh_key_by_id().id(id).send())
            .await
    }

    async fn create_ssh_key(
        &self,
        owner: KeyOwner,
        input: &types::SshKeyCreateInput,
    ) -> Result<types::SshKey, Error> {
        let operation = match owner {
            KeyOwner::User => &op::CREATE_SSH_KEY,
            KeyOwner::Project(_) => &op::CREATE_PROJECT_SSH_KEY,
        };
        let Some(label) = input.label.clone().filter(|l| !l.trim().is_empty()) else {
            return Err(Error::InvalidRequest {
                operation: operation.id,
                reason: "an SSH key needs a label to be created idempotently".into(),
            });
        };
        let conflict = |existing| {
            Failure::Final(Error::SshKeyLabelConflict {
                label: label.clone(),
                existing,
            })
        };
        self.run(idempotent(operation), CallOptions::default(), |at| {
            let input = input.clone();
            let label = label.clone();
            async move {
                match lookup_key(&at, owner, &label, input.key.as_deref()).await? {
                    KeyLookup::Found(k) => return Ok(k),
                    KeyLookup::Conflict(existing) => return Err(conflict(existing)),
                    KeyLookup::Absent => {}
                }
                let created = match owner {
                    KeyOwner::User => {
                        at.reply(at.api.create_ssh_key().body(input.clone()).send().await)
                    }
                    KeyOwner::Project(p) => at.reply(
                        at.api
                            .create_project_ssh_key()
                            .id(p)
                            .body(input.clone())
                            .send()
                            .await,
                    ),
                };
                match created {
                    Ok(k) => Ok(k),
                    // Another process created the key or took the label
                    // between our list and our create: read again.
                    Err(AttemptError::Rejected {
                        status: status @ (409 | 422),
                        messages,
                    }) => match lookup_key(&at, owner, &label, input.key.as_deref()).await? {
                        KeyLookup::Found(k) => Ok(k),
                        KeyLookup::Conflict(existing) => Err(conflict(existing)),
                        KeyLookup::Absent => {
                            Err(AttemptError::Rejected { status, messages }.into())
                        }
                    },
                    Err(e) => Err(e.into()),
                }
            }
        })
        .await
    }

    async fn update_ssh_key(
        &self,
        id: Uuid,
        input: &types::SshKeyInput,
    ) -> Result<types::SshKey, Error> {
        self.call(|api| api.update_ssh_key().id(id).body(input.clone()).send())
            .await
    }

    async fn delete_ssh_key(&self, id: Uuid) -> Result<(), Error> {
        self.delete(|api| api.delete_ssh_key().id(id).send()).await
    }
}
