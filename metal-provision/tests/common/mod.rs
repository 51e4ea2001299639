//! What the controller's tests share.

use metal_fake::Fake;
use metal_policy::Metal;
use metal_provision::controller::{create_request, is_free};
use metal_provision::RunConfig;
use uuid::Uuid;

/// Creates `hostname` with the default run's tag on the last free
/// reservation (a run takes them from the first), as another API user or an
/// earlier run would; returns its ID.
pub async fn create_beside(fake: &Fake, hostname: &str) -> Uuid {
    let config = RunConfig::new(fake.project(), 1);
    let reservation = fake
        .reservations()
        .into_iter()
        .rev()
        .find(is_free)
        .expect("a free reservation");
    let body = create_request(&config, hostname, &reservation).expect("a valid create body");
    fake.client()
        .create_device(fake.project(), &body)
        .await
        .expect("the create succeeds")
        .id
        .expect("the device has an ID")
}
