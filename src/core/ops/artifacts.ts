import { z } from 'zod';
import { unwrap } from '../board/outcomes.js';
import { CoordError } from '../errors.js';
import { defineOperation } from '../operation.js';
import { ArtifactOutput, ListArtifactsOutput } from '../output-schemas.js';
import { GetArtifactInput, ListArtifactsInput, PutArtifactInput } from '../schemas.js';
import { sha256Hex } from '../shared/canonical-json.js';

export const MAX_ARTIFACT_BYTES = 16 * 1024 * 1024;

export const putArtifact = defineOperation({
  name: 'upload_artifact',
  summary: 'Attach bytes to a claimed task under your own artifact_id; the same bytes again is a safe retry.',
  input: PutArtifactInput.extend({ bytes: z.instanceof(Uint8Array) }),
  output: ArtifactOutput,
  async run(ctx, input) {
    if (input.bytes.byteLength > MAX_ARTIFACT_BYTES) {
      throw new CoordError(
        'too_large',
        `artifact is ${input.bytes.byteLength} bytes; the limit is ${MAX_ARTIFACT_BYTES}`,
      );
    }
    const outcome = await ctx.store.putArtifact({
      task_id: input.task_id,
      claim_id: input.claim_id,
      artifact_id: input.artifact_id,
      name: input.name ?? input.artifact_id,
      content_type: input.content_type ?? 'application/octet-stream',
      bytes: input.bytes,
      sha256: sha256Hex(input.bytes),
    });
    return unwrap(outcome, input.task_id);
  },
});

export const getArtifact = defineOperation({
  name: 'get_artifact',
  summary: 'Download an artifact of a task.',
  input: GetArtifactInput,
  output: z.unknown(),
  async run(ctx, input) {
    const found = await ctx.store.getArtifact(input.task_id, input.artifact_id);
    if (!found) throw new CoordError('not_found', `no artifact ${input.artifact_id} on #${input.task_id}`);
    return found;
  },
});

export const listArtifacts = defineOperation({
  name: 'list_artifacts',
  summary: "A task's artifacts (names, sizes, hashes; not the bytes), oldest first.",
  input: ListArtifactsInput,
  output: ListArtifactsOutput,
  async run(ctx, input) {
    // Whoever cannot see the task cannot learn what is attached to it either.
    const task = await ctx.store.getTask(input.task_id, input.agent);
    if (!task) throw new CoordError('not_found', `#${input.task_id} does not exist (or is private to another agent)`);
    return { artifacts: await ctx.store.listArtifacts(input.task_id) };
  },
});
