/** Asks a yes/no question before a destructive change; "no" is the default (Enter cancels). */
import { ConfirmInput } from "@inkjs/ui";
import { Text } from "ink";
import { useState } from "react";

export type ConfirmPromptProps = { question: string; onAnswer: (confirmed: boolean) => void };

export function ConfirmPrompt({ question, onAnswer }: ConfirmPromptProps) {
  const [answer, setAnswer] = useState<boolean | null>(null);
  const answerWith = (confirmed: boolean) => {
    setAnswer(confirmed);
    onAnswer(confirmed);
  };
  return (
    <Text>
      <Text color="yellow">?</Text> {question}{" "}
      {answer === null ? (
        <ConfirmInput defaultChoice="cancel" onConfirm={() => answerWith(true)} onCancel={() => answerWith(false)} />
      ) : (
        <Text color={answer ? "green" : "red"}>{answer ? "yes" : "no"}</Text>
      )}
    </Text>
  );
}
