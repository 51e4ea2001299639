//! [`Metal`]: the operations a provisioning controller programs against.

use async_trait::async_trait;
use futures::stream::{BoxStream, StreamExt};
use metal_api::types;
use uuid::Uuid;

use crate::error::Error;

/// Who owns an SSH key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyOwner {
    /// The current user (`/ssh-keys`).
    User,
    /// A project (`/projects/{id}/ssh-keys`).
    Project(Uuid),
}

/// Which nested objects a read expands (`include`) or reduces to an
/// `{"href": ...}` stub (`exclude`).
///
/// ```
/// let fields = metal_policy::Fields::include(["project", "facility"]);
/// assert_eq!(fields.include, vec!["project", "facility"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Names to include (dotted up to three levels).
    pub include: Vec<String>,
    /// Names to exclude.
    pub exclude: Vec<String>,
}

impl Fields {
    /// Includes these names.
    pub fn include<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            include: names.into_iter().map(Into::into).collect(),
            exclude: Vec::new(),
        }
    }

    /// The comma-joined `include` value, `None` when empty.
    pub fn include_param(&self) -> Option<String> {
        (!self.include.is_empty()).then(|| metal_api::csv(&self.include))
    }

    /// The comma-joined `exclude` value, `None` when empty.
    pub fn exclude_param(&self) -> Option<String> {
        (!self.exclude.is_empty()).then(|| metal_api::csv(&self.exclude))
    }
}

/// Which of a project's devices a list returns, filtered by the server
/// (`findProjectDevices`'s `tag` and `hostname` parameters). Empty: every
/// device.
///
/// `tag` is one tag, matched exactly; `hostname` is a *partial* match (the
/// API's "Filter by partial hostname": `web` also finds `web-10` and
/// `old-web`), so compare hostnames yourself when you need one exactly.
///
/// ```
/// let filter = metal_policy::DeviceFilter::tag("role=web").and_hostname("web-1");
/// assert_eq!(filter.tag.as_deref(), Some("role=web"));
/// assert_eq!(filter.hostname.as_deref(), Some("web-1"));
/// assert!(metal_policy::DeviceFilter::default().is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceFilter {
    /// Devices carrying this tag.
    pub tag: Option<String>,
    /// Devices whose hostname contains this.
    pub hostname: Option<String>,
}

impl DeviceFilter {
    /// Devices carrying `tag`.
    pub fn tag(tag: impl Into<String>) -> Self {
        Self {
            tag: Some(tag.into()),
            hostname: None,
        }
    }

    /// Devices whose hostname contains `hostname`.
    pub fn hostname(hostname: impl Into<String>) -> Self {
        Self {
            tag: None,
            hostname: Some(hostname.into()),
        }
    }

    /// This filter, also requiring the hostname to contain `hostname`.
    pub fn and_hostname(mut self, hostname: impl Into<String>) -> Self {
        self.hostname = Some(hostname.into());
        self
    }

    /// Whether it lets every device through.
    pub fn is_empty(&self) -> bool {
        self.tag.is_none() && self.hostname.is_none()
    }
}

/// Which of a project's devices a paged list reads, and how: the server's
/// [`DeviceFilter`], the [`Fields`] each device carries, the page size, and
/// the most pages one list may take ([`Metal::query_device_pages`]).
///
/// ```
/// use metal_policy::{DeviceFilter, DeviceQuery, Fields};
/// let query = DeviceQuery::new()
///     .filter(DeviceFilter::tag("role=web"))
///     .fields(Fields { include: vec![], exclude: vec!["plan".into()] })
///     .per_page(1000)
///     .max_pages(5);
/// assert_eq!(query.max_pages, Some(5));
/// assert_eq!(DeviceQuery::default().per_page, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceQuery {
    /// Which devices (applied by the server).
    pub filter: DeviceFilter,
    /// What each device carries (`include`/`exclude`).
    pub fields: Fields,
    /// Devices per page; the client's `per_page` when `None`.
    pub per_page: Option<u32>,
    /// The most pages one list takes; when the list announces more, its
    /// stream ends with [`Error::TooManyPages`] after the last one. `None`:
    /// bounded by the client's entries only.
    pub max_pages: Option<u32>,
}

impl DeviceQuery {
    /// Every device, the client's page size, every page.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only the devices `filter` lets through.
    pub fn filter(mut self, filter: DeviceFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Devices with these `include`/`exclude` fields.
    pub fn fields(mut self, fields: Fields) -> Self {
        self.fields = fields;
        self
    }

    /// Pages of `n` devices (at least 1).
    pub fn per_page(mut self, n: u32) -> Self {
        self.per_page = Some(n.max(1));
        self
    }

    /// At most `n` pages (at least 1) per list.
    pub fn max_pages(mut self, n: u32) -> Self {
        self.max_pages = Some(n.max(1));
        self
    }
}

/// The Metal operations a controller uses, with the policy's guarantees
/// (see the crate docs). Implemented by [`crate::Client`] and by
/// `metal-fake`; use it as `Arc<dyn Metal>` to inject either.
///
/// ```
/// # use std::sync::Arc;
/// # use metal_policy::Metal;
/// async fn count_devices(metal: Arc<dyn Metal>, project: uuid::Uuid) -> Result<usize, metal_policy::Error> {
///     Ok(metal.list_devices(project).await?.len())
/// }
/// ```
#[async_trait]
pub trait Metal: Send + Sync {
    /// Reads a project.
    async fn get_project(&self, id: Uuid) -> Result<types::Project, Error>;

    /// Reads a device.
    async fn get_device(&self, id: Uuid, fields: &Fields) -> Result<types::Device, Error>;

    /// Lists every device of a project, following every page; entries repeated
    /// across pages appear once.
    async fn list_devices(&self, project: Uuid) -> Result<Vec<types::Device>, Error>;

    /// Streams a project's devices page by page, for very large projects.
    fn device_pages(&self, project: Uuid) -> BoxStream<'_, Result<Vec<types::Device>, Error>>;

    /// Lists the devices of a project that pass `filter` (applied by the
    /// server), following every page as [`Metal::list_devices`] does.
    ///
    /// ```
    /// # use metal_policy::{DeviceFilter, Metal};
    /// async fn web_hosts(metal: &dyn Metal, project: uuid::Uuid) -> Result<usize, metal_policy::Error> {
    ///     let filter = DeviceFilter::tag("role=web");
    ///     Ok(metal.list_devices_matching(project, &filter).await?.len())
    /// }
    /// ```
    async fn list_devices_matching(
        &self,
        project: Uuid,
        filter: &DeviceFilter,
    ) -> Result<Vec<types::Device>, Error>;

    /// Streams the devices of a project that `query` selects, page by page,
    /// each page under the client's policy (a failed page retries that page
    /// only), entries repeated across pages once. A list cut by
    /// [`DeviceQuery::max_pages`] ends with [`Error::TooManyPages`] after
    /// its last allowed page. [`crate::DeviceWatch`] refreshes through it.
    ///
    /// [`crate::Client`] honours every part of the query. The default, for
    /// other implementations, is one item: the whole
    /// [`Metal::list_devices_matching`] of the query's filter (its fields,
    /// page size and page bound left out).
    ///
    /// ```
    /// # use futures::TryStreamExt;
    /// # use metal_policy::{DeviceQuery, Metal};
    /// async fn first_pages(metal: &dyn Metal, project: uuid::Uuid) -> Result<usize, metal_policy::Error> {
    ///     let query = DeviceQuery::new().per_page(500).max_pages(2);
    ///     let pages: Vec<_> = metal.query_device_pages(project, &query).try_collect().await?;
    ///     Ok(pages.iter().map(Vec::len).sum())
    /// }
    /// ```
    fn query_device_pages(
        &self,
        project: Uuid,
        query: &DeviceQuery,
    ) -> BoxStream<'_, Result<Vec<types::Device>, Error>> {
        let filter = query.filter.clone();
        futures::stream::once(async move { self.list_devices_matching(project, &filter).await })
            .boxed()
    }

    /// Creates a device on the hardware reservation the request names,
    /// idempotently: however many attempts it takes, at most one device is
    /// created, and a reservation taken by someone else is
    /// [`Error::RaceLost`]. A first attempt is the create alone; the
    /// reservation is read only after an attempt whose outcome was unknown,
    /// or after a refused create, to tell a lost race (see the crate docs,
    /// guarantee 4).
    ///
    /// `hardware_reservation_id: "next-available"` lets the API choose one
    /// of the project's provisionable reservations matching the plan and
    /// the metro or facility; when none does, the call ends at once with
    /// [`Error::NoReservationAvailable`]. After an attempt whose outcome is
    /// unknown, the device is found by its witness tag in the project's
    /// device list (one filtered list per recovery, see the crate docs).
    ///
    /// The request is built with the generated builders, which check the
    /// required fields before anything is sent:
    ///
    /// ```no_run
    /// # async fn demo(metal: &dyn metal_policy::Metal, project: uuid::Uuid, reservation: uuid::Uuid) -> Result<(), Box<dyn std::error::Error>> {
    /// use metal_api::types;
    /// let input: types::DeviceCreateInMetroInput = types::DeviceCreateInMetroInput::builder()
    ///     .metro("da")
    ///     .plan("c3.small.x86")
    ///     .operating_system("ubuntu_24_04")
    ///     .hardware_reservation_id(reservation.to_string())
    ///     .hostname(Some("web-1".to_string()))
    ///     .try_into()?;
    /// let device = metal
    ///     .create_device(project, &types::CreateDeviceRequest::MetroInput(input))
    ///     .await?;
    /// # drop(device); Ok(()) }
    /// ```
    async fn create_device(
        &self,
        project: Uuid,
        request: &types::CreateDeviceRequest,
    ) -> Result<types::Device, Error>;

    /// Changes a device's mutable fields.
    async fn update_device(
        &self,
        id: Uuid,
        update: &types::DeviceUpdateInput,
    ) -> Result<types::Device, Error>;

    /// Reboots a device. Not idempotent: an unknown outcome is
    /// [`Error::OutcomeUnknown`], never a second reboot.
    async fn reboot_device(&self, id: Uuid) -> Result<(), Error>;

    /// Powers a device on; succeeds if it already is.
    async fn power_on_device(&self, id: Uuid) -> Result<(), Error>;

    /// Powers a device off; succeeds if it already is.
    async fn power_off_device(&self, id: Uuid) -> Result<(), Error>;

    /// Deletes a device; a device gone after an attempt whose outcome was
    /// unknown counts as deleted.
    async fn delete_device(&self, id: Uuid) -> Result<(), Error>;

    /// Lists every hardware reservation of a project, with facility and
    /// device included.
    async fn list_reservations(
        &self,
        project: Uuid,
    ) -> Result<Vec<types::HardwareReservation>, Error>;

    /// Reads a hardware reservation, with its device included.
    async fn get_reservation(&self, id: Uuid) -> Result<types::HardwareReservation, Error>;

    /// Moves a hardware reservation to another project; succeeds if it is
    /// already there.
    async fn move_reservation(
        &self,
        id: Uuid,
        project: Uuid,
    ) -> Result<types::HardwareReservation, Error>;

    /// Lists the SSH keys of a user or project.
    async fn list_ssh_keys(&self, owner: KeyOwner) -> Result<Vec<types::SshKey>, Error>;

    /// Reads an SSH key.
    async fn get_ssh_key(&self, id: Uuid) -> Result<types::SshKey, Error>;

    /// Creates an SSH key idempotently: an existing key with the same label
    /// and key is returned; the same label with another key is
    /// [`Error::SshKeyLabelConflict`].
    async fn create_ssh_key(
        &self,
        owner: KeyOwner,
        input: &types::SshKeyCreateInput,
    ) -> Result<types::SshKey, Error>;

    /// Changes an SSH key's label, key or tags.
    async fn update_ssh_key(
        &self,
        id: Uuid,
        input: &types::SshKeyInput,
    ) -> Result<types::SshKey, Error>;

    /// Deletes an SSH key.
    async fn delete_ssh_key(&self, id: Uuid) -> Result<(), Error>;
}
