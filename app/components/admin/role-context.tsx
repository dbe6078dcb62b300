/**
 * The signed-in member's role, for the admin panel's tabs and buttons (issue 35): each member sees only what
 * their role may use. The server decides on every request anyway; this only keeps refused buttons off screen.
 */
import { createContext, useContext, type ReactNode } from "react";
import { can, type MemberRole, type Permission } from "../../domain/team.ts";

type AdminRole = { address: string; role: MemberRole };

const AdminRoleContext = createContext<AdminRole | null>(null);

export function AdminRoleProvider({ value, children }: { value: AdminRole; children: ReactNode }) {
  return <AdminRoleContext.Provider value={value}>{children}</AdminRoleContext.Provider>;
}

/** Who is signed in, and whether their role holds a permission. Outside the panel (no provider): the owner, as the spec's one admin. */
export function useAdminRole(): AdminRole & { can: (permission: Permission) => boolean } {
  const value = useContext(AdminRoleContext) ?? { address: "", role: "owner" as const };
  return { ...value, can: (permission) => can(value.role, permission) };
}

/** Renders its children only for a role holding `permission`. */
export function Can({ permission, children }: { permission: Permission; children: ReactNode }) {
  return useAdminRole().can(permission) ? <>{children}</> : null;
}
