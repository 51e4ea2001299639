//! What an access check finds by index rather than by reading whole
//! tables or lists: a world token and an API key by their value, a
//! user's tokens, the organisations a user is a member of. (An
//! organisation's projects and a user's memberships are the relations'
//! index's: `model/relations/index.rs`.) Kept as the relations' index is:
//! made after a load, told of every record the journal saw written.

use std::collections::{BTreeSet, HashMap};

use uuid::Uuid;

/// The access checks' index.
#[derive(Debug, Default)]
pub(crate) struct AccessIndex {
    /// Each world token's place in the world's list, by its value.
    pub(super) tokens: HashMap<String, usize>,
    /// Each world token user's tokens (places in the list).
    pub(super) user_tokens: HashMap<Uuid, Vec<usize>>,
    /// Each API key's ID by its token, and back.
    keys: HashMap<String, Uuid>,
    key_tokens: HashMap<Uuid, String>,
    /// The organisations each user is a member of, and each
    /// organisation's members.
    member_of: HashMap<Uuid, BTreeSet<Uuid>>,
    members: HashMap<Uuid, Vec<Uuid>>,
}

impl AccessIndex {
    /// The place of the world token `token`.
    pub(crate) fn token(&self, token: &str) -> Option<usize> {
        self.tokens.get(token).copied()
    }

    /// The places of `user`'s world tokens.
    pub(crate) fn tokens_of(&self, user: Uuid) -> &[usize] {
        self.user_tokens.get(&user).map_or(&[], Vec::as_slice)
    }

    /// The API key whose token is `token`.
    pub(crate) fn api_key(&self, token: &str) -> Option<Uuid> {
        self.keys.get(token).copied()
    }

    /// The organisations `user` is a member of, in ID order.
    pub(crate) fn member_of(&self, user: Uuid) -> impl Iterator<Item = Uuid> + '_ {
        self.member_of.get(&user).into_iter().flatten().copied()
    }

    pub(super) fn key(&mut self, id: Uuid, token: Option<String>) {
        if let Some(old) = self.key_tokens.remove(&id) {
            self.keys.remove(&old);
        }
        if let Some(t) = token {
            self.keys.insert(t.clone(), id);
            self.key_tokens.insert(id, t);
        }
    }

    pub(super) fn organization(&mut self, id: Uuid, members: Vec<Uuid>) {
        for old in self.members.remove(&id).unwrap_or_default() {
            if let Some(set) = self.member_of.get_mut(&old) {
                set.remove(&id);
                if set.is_empty() {
                    self.member_of.remove(&old);
                }
            }
        }
        for m in &members {
            self.member_of.entry(*m).or_default().insert(id);
        }
        if !members.is_empty() {
            self.members.insert(id, members);
        }
    }
}
