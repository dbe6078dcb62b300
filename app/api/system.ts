/** Placeholder: filled in by the contract work (see app/api/kit.ts). */
export {};
