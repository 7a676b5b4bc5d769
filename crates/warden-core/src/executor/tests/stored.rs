//! Approvals run out of band: in a fresh session, verified, used up only
//! when they run.

use super::*;

#[test]
fn a_stored_approval_runs_in_a_fresh_session_and_is_verified() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Controlled);
    let mut asking = Session::new("gone");
    executor.execute_now(
        &mut asking,
        &call("query", json!({"action": "get", "target": "web1"})),
        at(0),
    );
    let pending = executor.execute_now(
        &mut asking,
        &call(
            "control",
            json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
        ),
        at(1),
    );
    let id = pending.approval.expect("an approval request").id;
    // Not approved yet: nothing runs.
    let early = block_on(executor.run_stored_approval(&id, at(2)));
    assert_eq!(code(&early.outcome), Some(ErrorCode::PolicyBlocked));
    assert!(world.hosts.received().is_empty());

    world
        .approvals
        .decide(&id, ApprovalState::Approved, None, at(3).wall_ms)
        .unwrap();
    let run = block_on(executor.run_stored_approval(&id, at(4)));
    assert!(run.outcome.response.ok, "{:?}", run.outcome.response);
    assert_eq!(run.session.id, "gone");
    let verification = run.verification.expect("a verification read");
    assert!(verification.response.ok);
    let received = world.hosts.received();
    assert_eq!(received.len(), 2, "{received:?}");
    assert!(received[0].1.contains("systemctl restart"));
    assert!(received[1].1.starts_with("systemctl show"));
    assert_eq!(run.session.fsm.state(), FsmState::Reading);

    // Single use.
    let again = block_on(executor.run_stored_approval(&id, at(5)));
    assert_eq!(code(&again.outcome), Some(ErrorCode::PolicyBlocked));
    assert_eq!(world.hosts.received().len(), 2);
}

/// A note has no target to find again: its approval stands for the
/// discovery, and the note is kept.
#[test]
fn a_stored_note_runs_out_of_band() {
    let world = World::new();
    let executor = world.executor(ControlLevel::Controlled);
    let mut asking = Session::new("gone");
    executor.execute_now(
        &mut asking,
        &call("query", json!({"action": "get", "target": "web1"})),
        at(0),
    );
    let pending = executor.execute_now(
        &mut asking,
        &call(
            "knowledge",
            json!({"action": "remember", "note": "backups run at 02:00"}),
        ),
        at(1),
    );
    let id = pending.approval.expect("an approval request").id;
    world
        .approvals
        .decide(&id, ApprovalState::Approved, None, at(2).wall_ms)
        .unwrap();
    let run = block_on(executor.run_stored_approval(&id, at(3)));
    assert!(run.outcome.response.ok, "{:?}", run.outcome.response);
    let notes = crate::ports::NotesStore::all(&world.notes).unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].text, "backups run at 02:00");
}

/// An approved call that a gate refuses is not used up: nothing ran, and
/// it can run once the refusal no longer holds.
#[test]
fn an_approval_a_gate_refuses_is_not_used_up() {
    let world = World::new();
    let controlled = world.executor(ControlLevel::Controlled);
    let mut asking = Session::new("gone");
    controlled.execute_now(
        &mut asking,
        &call("query", json!({"action": "get", "target": "web1"})),
        at(0),
    );
    let pending = controlled.execute_now(
        &mut asking,
        &call(
            "control",
            json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
        ),
        at(1),
    );
    let id = pending.approval.expect("an approval request").id;
    world
        .approvals
        .decide(&id, ApprovalState::Approved, None, at(2).wall_ms)
        .unwrap();
    let read_only = world.executor(ControlLevel::ReadOnly);
    let refused = block_on(read_only.run_stored_approval(&id, at(3)));
    assert_eq!(code(&refused.outcome), Some(ErrorCode::PolicyBlocked));
    assert!(world.hosts.received().is_empty(), "nothing ran");
    assert_eq!(
        world.approvals.get(&id).unwrap().state,
        ApprovalState::Approved,
        "still usable"
    );
    let run = block_on(controlled.run_stored_approval(&id, at(4)));
    assert!(run.outcome.response.ok, "{:?}", run.outcome.response);
    assert_eq!(
        world.approvals.get(&id).unwrap().state,
        ApprovalState::Consumed
    );
}
