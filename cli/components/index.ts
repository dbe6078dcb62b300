/** The shared Ink pieces. Commands import this lazily, so --json runs never load Ink. */
export { ConfirmPrompt } from "./ConfirmPrompt.tsx";
export { Details, type DetailsProps } from "./Details.tsx";
export { Progress } from "./Progress.tsx";
export { StatusLine, type Status } from "./StatusLine.tsx";
export { Table, type Column, type TableProps } from "./Table.tsx";
