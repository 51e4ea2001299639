//! The in-process [`Transport`]: one exchange with the fake, with every
//! fault turned into exactly the [`AttemptError`] the real HTTP transport
//! gives for that HTTP failure; and the in-process [`Metal`], which runs the
//! policy client over that transport so in-process and over-HTTP runs share
//! one policy.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::stream::BoxStream;
use metal_api::types;
use metal_policy::{AttemptError, Error, Fields, KeyOwner, Metal, Request, Response, Transport};
use uuid::Uuid;

use crate::fake::{Exchange, Fake, Shared};
use crate::model::ApiError;

/// The per-attempt timeout of [`Fake::client`]: the HTTP transport's own
/// default request timeout, so a hung reply ends the same way.
pub const IN_PROCESS_ATTEMPT_TIMEOUT: Duration = metal_api::config::DEFAULT_REQUEST_TIMEOUT;

/// The transport the built-in client uses: the shared state without the
/// client, so the client does not keep itself alive.
struct InProcess(Arc<Shared>);

#[async_trait]
impl Transport for InProcess {
    async fn send(&self, request: Request) -> Result<Response, AttemptError> {
        exchange(&self.0, request).await
    }
}

/// The built-in policy client: no rate limit, 4 calls in flight, the
/// default backoff, [`IN_PROCESS_ATTEMPT_TIMEOUT`] per attempt, then
/// whatever `configure` changes.
pub(crate) fn policy_client(
    shared: &Arc<Shared>,
    configure: impl FnOnce(metal_policy::ClientBuilder) -> metal_policy::ClientBuilder,
) -> Result<metal_policy::Client, metal_policy::BuildError> {
    let builder = metal_policy::Client::builder()
        .transport(Arc::new(InProcess(shared.clone())))
        .api_rate(Duration::ZERO)
        .parallelism(4)
        .attempt_timeout(Some(IN_PROCESS_ATTEMPT_TIMEOUT));
    configure(builder).build()
}

/// Whole seconds, rounded up: what a `Retry-After` header can say.
pub(crate) fn whole_seconds(d: std::time::Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// The classification of an API refusal, as the HTTP transport makes it.
pub(crate) fn refusal(e: ApiError, retry_after: Option<std::time::Duration>) -> AttemptError {
    match e.status {
        429 => AttemptError::Throttled {
            status: 429,
            retry_after,
        },
        s if s >= 500 => AttemptError::Unknown {
            status: Some(s),
            detail: e.messages.join("; "),
            source: None,
        },
        status => AttemptError::Rejected {
            status,
            messages: e.messages,
        },
    }
}

#[async_trait]
impl Transport for Fake {
    async fn send(&self, request: Request) -> Result<Response, AttemptError> {
        exchange(&self.shared, request).await
    }
}

async fn exchange(shared: &Shared, request: Request) -> Result<Response, AttemptError> {
    match shared.exchange(&request).await {
        Exchange::Reply(Ok(response)) => Ok(response),
        Exchange::Reply(Err(e)) => Err(refusal(e, None)),
        Exchange::NotSent => Err(AttemptError::NotSent {
            source: "fake: connection refused".into(),
        }),
        Exchange::Failed { status } => Err(AttemptError::Unknown {
            status: Some(status),
            detail: "fake: injected server error".to_string(),
            source: None,
        }),
        Exchange::Throttled { retry_after } => Err(AttemptError::Throttled {
            status: 429,
            retry_after: Some(std::time::Duration::from_secs(whole_seconds(retry_after))),
        }),
        Exchange::BadGateway => Err(AttemptError::Unknown {
            status: Some(502),
            detail: "fake: HTML 502 from a proxy".to_string(),
            source: None,
        }),
        Exchange::Dropped => Err(AttemptError::Unknown {
            status: None,
            detail: "fake: connection closed before the reply".to_string(),
            source: None,
        }),
        Exchange::Hang => std::future::pending().await,
        // The generated client reads the whole body before decoding; a
        // body cut short is a body error, which carries no status.
        Exchange::Truncated(_) => Err(AttemptError::Unknown {
            status: None,
            detail: "fake: reply body cut short".to_string(),
            source: None,
        }),
    }
}

#[async_trait]
impl Metal for Fake {
    async fn get_project(&self, id: Uuid) -> Result<types::Project, Error> {
        self.client.get_project(id).await
    }

    async fn get_device(&self, id: Uuid, fields: &Fields) -> Result<types::Device, Error> {
        self.client.get_device(id, fields).await
    }

    async fn list_devices(&self, project: Uuid) -> Result<Vec<types::Device>, Error> {
        self.client.list_devices(project).await
    }

    fn device_pages(&self, project: Uuid) -> BoxStream<'_, Result<Vec<types::Device>, Error>> {
        self.client.device_pages(project)
    }

    async fn create_device(
        &self,
        project: Uuid,
        request: &types::CreateDeviceRequest,
    ) -> Result<types::Device, Error> {
        self.client.create_device(project, request).await
    }

    async fn update_device(
        &self,
        id: Uuid,
        update: &types::DeviceUpdateInput,
    ) -> Result<types::Device, Error> {
        self.client.update_device(id, update).await
    }

    async fn reboot_device(&self, id: Uuid) -> Result<(), Error> {
        self.client.reboot_device(id).await
    }

    async fn power_on_device(&self, id: Uuid) -> Result<(), Error> {
        self.client.power_on_device(id).await
    }

    async fn power_off_device(&self, id: Uuid) -> Result<(), Error> {
        self.client.power_off_device(id).await
    }

    async fn delete_device(&self, id: Uuid) -> Result<(), Error> {
        self.client.delete_device(id).await
    }

    async fn list_reservations(
        &self,
        project: Uuid,
    ) -> Result<Vec<types::HardwareReservation>, Error> {
        self.client.list_reservations(project).await
    }

    async fn get_reservation(&self, id: Uuid) -> Result<types::HardwareReservation, Error> {
        self.client.get_reservation(id).await
    }

    async fn move_reservation(
        &self,
        id: Uuid,
        project: Uuid,
    ) -> Result<types::HardwareReservation, Error> {
        self.client.move_reservation(id, project).await
    }

    async fn list_ssh_keys(&self, owner: KeyOwner) -> Result<Vec<types::SshKey>, Error> {
        self.client.list_ssh_keys(owner).await
    }

    async fn get_ssh_key(&self, id: Uuid) -> Result<types::SshKey, Error> {
        self.client.get_ssh_key(id).await
    }

    async fn create_ssh_key(
        &self,
        owner: KeyOwner,
        input: &types::SshKeyCreateInput,
    ) -> Result<types::SshKey, Error> {
        self.client.create_ssh_key(owner, input).await
    }

    async fn update_ssh_key(
        &self,
        id: Uuid,
        input: &types::SshKeyInput,
    ) -> Result<types::SshKey, Error> {
        self.client.update_ssh_key(id, input).await
    }

    async fn delete_ssh_key(&self, id: Uuid) -> Result<(), Error> {
        self.client.delete_ssh_key(id).await
    }
}
