-- A new schedule's basis switched an hour ahead (issue 36, item 2; docs/decisions.md "A new schedule's basis,
-- switched an hour ahead"). The accrual pass that credits the hour before a new schedule's first writes the new
-- figures over the basis rows in place (their unfolded accrual carried), so that first hour starts from the basis
-- as any hour does, instead of taking figures prepared beside it. The prepared figures of migration 0070 are no
-- longer written or read. A deployment that migrates between a preparation and the hour it was for credits that
-- hour by aggregating every stake, as without one: correct, once slower.
drop table accrual_basis_prepared;
drop table accrual_basis_prepared_hour;
