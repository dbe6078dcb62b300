-- npm run test:deploy only: the migration its "next release" image carries (copied into that image's build
-- context, never into db/migrations). A new table and a new nullable column: what a release may add while the
-- previous release still serves.
create table deploy_test_upgrade (id integer primary key, note text not null);
insert into deploy_test_upgrade (id, note) values (1, 'applied by the next release');
alter table giveaways add column deploy_test_note text;
