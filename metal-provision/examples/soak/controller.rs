//! One controller process of the soak (`soak controller ...`): reconcile
//! loops over the shared pool of reservations, through the policy client
//! with limits shared in Redis, its ledger in a file.
//!
//! Each step is one reconcile action: settle an unresolved create or
//! delete, create a device up to the target, reboot one, power-cycle one,
//! delete one (only once it is `active` or `failed`: deleting a device
//! still provisioning is refused), or rotate the slot's SSH key. A step
//! may be cancelled at a random point (`tokio::time::timeout`), as a
//! preempted reconcile loop would be; the ledger is consistent at every
//! await point, so the next step settles whatever the cancelled one left.
//!
//! Standard output, one line each: `cancel` when a step was cancelled,
//! `next_available` when a `next-available` create's reply named its device,
//! `degraded` / `restored` when the client falls back to local limits and
//! returns to the shared ones, and at the end `final in_flight=N
//! waiting=N`. Standard input closing
//! means stop: the step in flight is dropped and the gauges read.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use metal_api::{types, DeviceState};
use metal_policy::{Client, DeviceFilter, Error, Fields, KeyOwner, Metal, SharedLimits};
use metal_provision::controller::is_free;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::io::AsyncReadExt;
use uuid::Uuid;

use crate::gauge::gauge;
use crate::ledger::{Create, Ledger, LedgerError, Stage, WITNESS_PREFIX};

/// How many times a create refused outright (not a lost race) is sent
/// again before the controller gives it up.
const MAX_REFUSALS: u32 = 3;

/// The `hardware_reservation_id` that asks the API to pick a reservation.
const NEXT_AVAILABLE: &str = "next-available";

/// A create asks for `next-available` (the API picks the reservation)
/// with this probability, instead of naming a free one.
const NEXT_AVAILABLE_PROBABILITY: f64 = 0.3;

/// A step is cancelled with this probability, at a random point.
const CANCEL_PROBABILITY: f64 = 0.15;

/// The longest a cancelled step runs before it is dropped.
const CANCEL_WITHIN: Duration = Duration::from_millis(400);

/// The flags of one controller process (given by the soak, not a person).
#[derive(Args, Debug, Clone)]
pub struct ControllerArgs {
    /// The controller's slot (its ledger and key label).
    #[arg(long)]
    pub slot: usize,
    /// The API base URL.
    #[arg(long)]
    pub endpoint: String,
    /// The project.
    #[arg(long)]
    pub project: Uuid,
    /// The Redis URL for shared limits.
    #[arg(long)]
    pub redis: String,
    /// The Redis key prefix.
    #[arg(long)]
    pub prefix: String,
    /// The ledger file.
    #[arg(long)]
    pub ledger: PathBuf,
    /// The run's tag, put on every device.
    #[arg(long)]
    pub run_tag: String,
    /// Seed of the controller's choices.
    #[arg(long)]
    pub seed: u64,
    /// Requests per second, across all controllers.
    #[arg(long)]
    pub rate: u32,
    /// How many controllers share the limits.
    #[arg(long)]
    pub controllers: u32,
    /// Devices this controller keeps (roughly).
    #[arg(long)]
    pub target: usize,
}

/// Why a controller stopped before it was told to.
#[derive(Debug, thiserror::Error)]
pub enum ControllerError {
    /// The ledger could not be read or written.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// The client could not be built.
    #[error("cannot build the client: {0}")]
    Client(String),
}

/// Runs one controller until its standard input closes.
pub async fn run(args: ControllerArgs) -> Result<(), ControllerError> {
    let mut ledger = Ledger::load(&args.ledger)?;
    ledger.incarnation += 1;
    ledger.save(&args.ledger)?;
    let token = std::env::var(metal_api::config::ENV_AUTH_TOKEN)
        .map_err(|_| ControllerError::Client("no METAL_AUTH_TOKEN".into()))?;
    let config = metal_api::Config::builder()
        .auth_token(token)
        .base_url(args.endpoint.clone())
        .build()
        .map_err(|e| ControllerError::Client(e.to_string()))?;
    let registry = prometheus::Registry::new();
    let rate = args.rate.max(1);
    let client = Client::builder()
        .config(config)
        .parallelism(2 * args.controllers.max(1) as usize)
        .api_rate(Duration::from_secs(1) / rate)
        .burst(1)
        .attempt_timeout(Some(Duration::from_secs(5)))
        .deadline(Some(Duration::from_secs(30)))
        .registry(registry.clone())
        .shared_limits(
            SharedLimits::redis(args.redis.clone(), args.prefix.clone())
                .processes(args.controllers.max(1)),
        )
        .build()
        .map_err(|e| ControllerError::Client(e.to_string()))?;
    let metal: Arc<dyn Metal> = Arc::new(client);

    let (stop_tx, mut stop) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let mut stdin = tokio::io::stdin();
        let mut buf = [0u8; 64];
        while matches!(stdin.read(&mut buf).await, Ok(n) if n > 0) {}
        let _ = stop_tx.send(true);
    });

    // Each fall back to local limits (Redis away or slower than its
    // timeout) and each return, as they happen.
    let watched = registry.clone();
    tokio::spawn(async move {
        let mut was = 0.0;
        loop {
            let now = gauge(&watched, "equinix_api_shared_limits_degraded");
            if now != was {
                println!("{}", if now == 1.0 { "degraded" } else { "restored" });
                was = now;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });

    let seed = args.seed ^ ((args.slot as u64) << 32) ^ u64::from(ledger.incarnation);
    let mut c = Controller {
        metal,
        args,
        ledger,
        rng: StdRng::seed_from_u64(seed),
    };
    loop {
        if *stop.borrow() {
            break;
        }
        let cancel_after = c
            .rng
            .random_bool(CANCEL_PROBABILITY)
            .then(|| c.rng.random_range(Duration::from_millis(1)..CANCEL_WITHIN));
        let pause = Duration::from_millis(c.rng.random_range(20..150));
        let step = c.step();
        let result = tokio::select! {
            _ = stop.changed() => break,
            r = async {
                match cancel_after {
                    Some(after) => tokio::time::timeout(after, step).await.ok(),
                    None => Some(step.await),
                }
            } => r,
        };
        match result {
            None => println!("cancel"),
            Some(Err(e)) => return Err(e),
            Some(Ok(())) => {}
        }
        tokio::select! {
            _ = stop.changed() => break,
            () = tokio::time::sleep(pause) => {}
        }
    }
    println!(
        "final in_flight={} waiting={}",
        gauge(&registry, "equinix_api_in_flight"),
        gauge(&registry, "equinix_api_waiting")
    );
    Ok(())
}

struct Controller {
    metal: Arc<dyn Metal>,
    args: ControllerArgs,
    ledger: Ledger,
    rng: StdRng,
}

/// Whether a device may be deleted now: settled as `active` or `failed`.
fn deletable(d: &types::Device) -> bool {
    matches!(
        d.state_kind(),
        Some(DeviceState::Active | DeviceState::Failed)
    )
}

impl Controller {
    fn save(&self) -> Result<(), ControllerError> {
        Ok(self.ledger.save(&self.args.ledger)?)
    }

    /// One reconcile action.
    async fn step(&mut self) -> Result<(), ControllerError> {
        // Settle what an earlier (cancelled, killed or failed) step left.
        let unsettled = self
            .ledger
            .creates
            .iter()
            .find(|(_, c)| c.stage != Stage::Live)
            .map(|(w, c)| (w.clone(), c.clone()));
        if let Some((witness, create)) = unsettled {
            return match create.stage {
                Stage::Pending => self.settle_create(&witness, &create).await,
                Stage::Deleting => self.delete(&witness, create.device).await,
                Stage::Live => Ok(()),
            };
        }
        let live: Vec<(String, Uuid)> = self
            .ledger
            .devices()
            .map(|(w, d, _)| (w.to_string(), d))
            .collect();
        let roll: f64 = self.rng.random();
        if live.len() < self.args.target && roll < 0.5 {
            return self.create().await;
        }
        if live.is_empty() {
            return self.create().await;
        }
        let (witness, device) = live[self.rng.random_range(0..live.len())].clone();
        match self.rng.random_range(0..100u32) {
            0..30 => self.reboot(device).await,
            30..45 => self.power_cycle(&witness, device).await,
            45..75 => self.delete_when_settled(&witness, device).await,
            75..85 => self.rotate_key().await,
            _ => self.tend(&witness, device).await,
        }
    }

    fn request(&self, witness: &str, create: &Create) -> types::CreateDeviceRequest {
        let reservation = create
            .reservation
            .map_or_else(|| NEXT_AVAILABLE.to_string(), |r| r.to_string());
        let input = types::DeviceCreateInFacilityInput::builder()
            .facility(vec!["da11".to_string()])
            .plan("c3.small.x86")
            .operating_system("ubuntu_24_04")
            .hostname(create.hostname.clone())
            .hardware_reservation_id(reservation)
            .tags(vec![self.args.run_tag.clone(), witness.to_string()]);
        match types::DeviceCreateInFacilityInput::try_from(input) {
            Ok(i) => i.into(),
            // Every required field is set above.
            Err(e) => unreachable!("the create request is complete: {e}"),
        }
    }

    /// A new logical create, on a free reservation or on `next-available`:
    /// the intent (witness, and reservation if named) is in the ledger
    /// before the request leaves.
    async fn create(&mut self) -> Result<(), ControllerError> {
        let reservation = if self.rng.random_bool(NEXT_AVAILABLE_PROBABILITY) {
            None
        } else {
            let Ok(reservations) = self.metal.list_reservations(self.args.project).await else {
                return Ok(());
            };
            let free: Vec<Uuid> = reservations
                .iter()
                .filter(|r| is_free(r))
                .filter_map(|r| r.id)
                .collect();
            if free.is_empty() {
                return Ok(());
            }
            Some(free[self.rng.random_range(0..free.len())])
        };
        let witness = format!("{WITNESS_PREFIX}{}", Uuid::new_v4());
        let create = Create {
            reservation,
            hostname: format!(
                "soak-c{}-{}",
                self.args.slot,
                &witness[WITNESS_PREFIX.len()..][..8]
            ),
            device: None,
            stage: Stage::Pending,
            refusals: 0,
        };
        self.ledger.creates.insert(witness.clone(), create.clone());
        self.save()?;
        self.send_create(&witness, &create).await
    }

    /// Sends the create of a logical create (again), with its witness.
    async fn send_create(&mut self, witness: &str, create: &Create) -> Result<(), ControllerError> {
        let request = self.request(witness, create);
        match self.metal.create_device(self.args.project, &request).await {
            Ok(d) => {
                if create.reservation.is_none() {
                    println!("next_available");
                }
                self.adopt(witness, d.id)
            }
            // Someone holds the reservation: maybe our own earlier send
            // (a cancelled step, a killed process), which only the
            // witness tells.
            Err(Error::RaceLost { .. }) => self.after_race_lost(witness, create).await,
            // None free: like a refusal, given up after a few (each later
            // step first looks for a device carrying the witness, in case
            // an earlier send of it landed after all).
            Err(Error::NoReservationAvailable { .. }) => self.refused(witness),
            Err(Error::Rejected { status, .. }) if status != 404 => self.refused(witness),
            // Unknown: settled by a later step through the witness.
            Err(_) => Ok(()),
        }
    }

    /// A create refused outright: counted, and given up after a few.
    fn refused(&mut self, witness: &str) -> Result<(), ControllerError> {
        if let Some(c) = self.ledger.creates.get_mut(witness) {
            c.refusals += 1;
            if c.refusals >= MAX_REFUSALS {
                // No device can carry this witness: the API refused it
                // every time.
                self.ledger.forget(witness);
            }
        }
        self.save()
    }

    fn adopt(&mut self, witness: &str, device: Option<Uuid>) -> Result<(), ControllerError> {
        if let Some(c) = self.ledger.creates.get_mut(witness) {
            c.device = device;
            c.stage = Stage::Live;
        }
        self.save()
    }

    /// Reads who holds a create's reservation and settles the create if
    /// the holder tells: our device (the witness on it: adopted), someone
    /// else's (the race is lost: forgotten). `true` when nobody holds it;
    /// `false` when settled, or unknown (the read failed: a later step
    /// tries again). A `next-available` create names no reservation: it
    /// is settled by its witness instead ([`Self::settle_by_witness`]).
    async fn settle_by_holder(
        &mut self,
        witness: &str,
        create: &Create,
    ) -> Result<bool, ControllerError> {
        let Some(reservation) = create.reservation else {
            return self.settle_by_witness(witness).await;
        };
        let Ok(hr) = self.metal.get_reservation(reservation).await else {
            return Ok(false);
        };
        match hr.device {
            Some(d) if d.tags.iter().any(|t| t == witness) => self.adopt(witness, d.id)?,
            Some(_) => {
                self.ledger.forget(witness);
                self.save()?;
            }
            None => return Ok(true),
        }
        Ok(false)
    }

    /// Settles a `next-available` create, whose reservation is unknown,
    /// by the device carrying its witness: adopted if there is one. `true`
    /// when there is none; `false` when settled, or unknown (the list
    /// failed: a later step tries again).
    async fn settle_by_witness(&mut self, witness: &str) -> Result<bool, ControllerError> {
        let filter = DeviceFilter::tag(witness);
        let Ok(found) = self
            .metal
            .list_devices_matching(self.args.project, &filter)
            .await
        else {
            return Ok(false);
        };
        match found.first() {
            Some(d) => {
                self.adopt(witness, d.id)?;
                Ok(false)
            }
            None => Ok(true),
        }
    }

    /// A create lost the race for its reservation: to another API user, or
    /// to an earlier send of this very create, which the witness on the
    /// holder tells. Freed again since: the next step sends it again.
    async fn after_race_lost(
        &mut self,
        witness: &str,
        create: &Create,
    ) -> Result<(), ControllerError> {
        self.settle_by_holder(witness, create).await.map(drop)
    }

    /// Settles a pending create through its witness: the device on the
    /// reservation carries it (ours), someone else's (the race is lost),
    /// or none (send the create again, with the same witness).
    async fn settle_create(
        &mut self,
        witness: &str,
        create: &Create,
    ) -> Result<(), ControllerError> {
        if self.settle_by_holder(witness, create).await? {
            self.send_create(witness, create).await?;
        }
        Ok(())
    }

    /// A logical reboot: counted in the ledger before it is sent, sent
    /// once whatever the reply (a lost reply is not a reason to reboot
    /// again).
    async fn reboot(&mut self, device: Uuid) -> Result<(), ControllerError> {
        let Ok(d) = self.metal.get_device(device, &Fields::default()).await else {
            return Ok(());
        };
        if d.state_kind() != Some(DeviceState::Active) {
            return Ok(());
        }
        *self.ledger.reboots.entry(device).or_default() += 1;
        self.save()?;
        let _ = self.metal.reboot_device(device).await;
        Ok(())
    }

    /// Power off, wait until off, power on.
    async fn power_cycle(&mut self, witness: &str, device: Uuid) -> Result<(), ControllerError> {
        let Ok(d) = self.metal.get_device(device, &Fields::default()).await else {
            return Ok(());
        };
        if d.state_kind() != Some(DeviceState::Active) {
            return self.tend(witness, device).await;
        }
        if self.metal.power_off_device(device).await.is_err() {
            return Ok(());
        }
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(250)).await;
            match self.metal.get_device(device, &Fields::default()).await {
                Ok(d) if d.state_kind() == Some(DeviceState::Inactive) => break,
                Ok(_) => {}
                Err(_) => return Ok(()),
            }
        }
        let _ = self.metal.power_on_device(device).await;
        Ok(())
    }

    /// Looks after one device: powers it on if off, deletes it if failed,
    /// forgets it if the server no longer has it.
    async fn tend(&mut self, witness: &str, device: Uuid) -> Result<(), ControllerError> {
        match self.metal.get_device(device, &Fields::default()).await {
            Ok(d) => match d.state_kind() {
                Some(DeviceState::Inactive) => {
                    let _ = self.metal.power_on_device(device).await;
                    Ok(())
                }
                Some(DeviceState::Failed) => self.delete(witness, Some(device)).await,
                _ => Ok(()),
            },
            Err(Error::Rejected { status: 404, .. }) => {
                self.ledger.forget(witness);
                self.save()
            }
            Err(_) => Ok(()),
        }
    }

    /// Deletes a device once it is settled (`active` or `failed`).
    async fn delete_when_settled(
        &mut self,
        witness: &str,
        device: Uuid,
    ) -> Result<(), ControllerError> {
        match self.metal.get_device(device, &Fields::default()).await {
            Ok(d) if deletable(&d) => self.delete(witness, Some(device)).await,
            Ok(_) => Ok(()),
            Err(Error::Rejected { status: 404, .. }) => {
                self.ledger.forget(witness);
                self.save()
            }
            Err(_) => Ok(()),
        }
    }

    /// Sends (or sends again) the delete of a device; the ledger says
    /// `Deleting` first, and forgets the device once the server has.
    async fn delete(&mut self, witness: &str, device: Option<Uuid>) -> Result<(), ControllerError> {
        let Some(device) = device else {
            self.ledger.forget(witness);
            return self.save();
        };
        if let Some(c) = self.ledger.creates.get_mut(witness) {
            c.stage = Stage::Deleting;
        }
        self.save()?;
        match self.metal.delete_device(device).await {
            Ok(()) | Err(Error::Rejected { status: 404, .. }) => {
                self.ledger.forget(witness);
                self.save()
            }
            // Refused while not settled (422), or unknown: try later.
            Err(_) => Ok(()),
        }
    }

    /// A new key for the slot, then every older key of the slot deleted.
    async fn rotate_key(&mut self) -> Result<(), ControllerError> {
        self.ledger.key_generation += 1;
        self.save()?;
        let slot_prefix = format!("{}-c{}-", self.args.run_tag, self.args.slot);
        let label = format!("{slot_prefix}{}", self.ledger.key_generation);
        let owner = KeyOwner::Project(self.args.project);
        let input = types::SshKeyCreateInput {
            label: Some(label.clone()),
            key: Some(format!(
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{:032x} soak",
                self.rng.random::<u128>()
            )),
            instances_ids: Vec::new(),
            tags: Vec::new(),
        };
        if self.metal.create_ssh_key(owner, &input).await.is_err() {
            return Ok(());
        }
        let Ok(keys) = self.metal.list_ssh_keys(owner).await else {
            return Ok(());
        };
        for k in keys {
            let old = k
                .label
                .as_deref()
                .is_some_and(|l| l.starts_with(&slot_prefix) && l != label);
            if let (true, Some(id)) = (old, k.id) {
                let _ = self.metal.delete_ssh_key(id).await;
            }
        }
        Ok(())
    }
}
