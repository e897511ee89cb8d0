/**
 * Sign-in progress kept in the interaction (server side) between steps: the step expected next, the account an
 * earlier step identified and the methods it used (amr).
 */
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { z } from 'zod';

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

const progressSchema = z.object({ step: z.string(), accountId: z.string(), amr: z.array(z.string()) });
export type Progress = z.infer<typeof progressSchema>;

export function progressOf(interaction: Interaction): Progress | undefined {
  const parsed = progressSchema.safeParse((interaction.result as { portal?: unknown } | undefined)?.portal);
  return parsed.success ? parsed.data : undefined;
}

export async function saveProgress(interaction: Interaction, progress: Progress): Promise<void> {
  interaction.result = { ...interaction.result, portal: progress } as InteractionResults;
  await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
}
