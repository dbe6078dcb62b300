/**
 * Prepares one migrated template per test run, so each test file starts from a fresh copy fast:
 * - TEST_DATABASE_URL set: a template database on that server (files get `CREATE DATABASE … TEMPLATE`);
 * - else a Docker engine answers: a PostgreSQL container from testcontainers, used the same way;
 * - else: embedded PGlite, migrated once and dumped to a tarball that each file loads in memory.
 */
import type { TestProject } from "vitest/node";
import { prepareTemplate, type TestDatabaseTarget } from "../support/test-database.ts";

declare module "vitest" {
  export interface ProvidedContext {
    testDatabase: TestDatabaseTarget;
  }
}

export default async function setup(project: TestProject) {
  const { target, teardown } = await prepareTemplate();
  project.provide("testDatabase", target);
  return teardown;
}
