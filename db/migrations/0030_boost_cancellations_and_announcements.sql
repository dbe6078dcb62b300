-- One journey, no seams (issue 33, items 3 and 7; docs/decisions.md "One journey, no seams").

-- A new boost schedule is announced to holders when it is saved (bell, channels): the event `boosts.scheduled`
-- (public), subject the schedule's version, or `{version}:cancelled` when an upcoming one is cancelled.
alter table notification_events drop constraint notification_events_event_check;
alter table notification_events add constraint notification_events_event_check check (event in (
  'boosts.scheduled',
  'giveaway.opened', 'giveaway.closing_soon', 'giveaway.drawn', 'giveaway.won',
  'proposal.opened', 'proposal.closing_soon', 'proposal.closed',
  'stake.ended', 'points.adjusted'
));

-- An upcoming schedule can be cancelled before it starts. Schedules stay append-only (0022): a cancellation is
-- a row of its own, and the schedule in force, the upcoming ones and the accrual leave cancelled versions out.
create table boost_schedule_cancellations (
  version       integer primary key references boost_schedules (version),
  cancelled_at  timestamptz not null,
  cancelled_by  text not null
);

-- Only a schedule that has not started, and that no credited hour used, can be cancelled, whoever writes.
create function boost_cancellation_before_start() returns trigger language plpgsql as $$
declare starts timestamptz;
begin
  select effective_from into starts from boost_schedules where version = new.version;
  if starts <= new.cancelled_at then
    raise exception 'boost schedule % started at %: only an upcoming schedule can be cancelled', new.version, starts
      using errcode = 'check_violation';
  end if;
  if exists (select 1 from accrual_runs where hour >= starts) then
    raise exception 'boost schedule %: an hour at or after its start is already credited', new.version
      using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger boost_schedule_cancellations_before_start before insert on boost_schedule_cancellations
  for each row execute function boost_cancellation_before_start();

-- History: the runtime adds cancellations and never changes or removes one.
revoke update, delete, truncate on boost_schedule_cancellations from spooks_runtime;
