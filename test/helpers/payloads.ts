// Real payloads of every kind, from the service on the small dataset: what the embed tests build replies from.
import type { MatchResult, SearchResult, Segment, SessionList, StatisticalObject, StatsProfile } from '../../src/lookup/schemas.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { startService } from './service.js';

export interface Payloads {
  profile: StatsProfile;
  segments: Segment[];
  weapons: Segment[];
  matches: MatchResult;
  report: StatisticalObject;
  sessions: SessionList;
  search: SearchResult[];
}

export async function servicePayloads(): Promise<Payloads> {
  const service = await startService(smallLines());
  try {
    const get = async <T>(path: string) => ((await service.request(path)).body as { data: T }).data;
    return {
      profile: await get<StatsProfile>('/v2/title_a/standard/profile/pc_store_a/ashplays'),
      segments: await get<Segment[]>('/v2/title_a/standard/profile/pc_store_a/ashplays/segments/map'),
      weapons: await get<Segment[]>('/v2/title_a/standard/profile/pc_store_a/ashplays/segments/weapon'),
      matches: await get<MatchResult>('/v2/title_a/standard/matches/pc_store_a/ashplays'),
      report: await get<StatisticalObject>('/v1/title_a/matches/pc_store_a/direct/a-1'),
      sessions: await get<SessionList>('/v2/title_b/standard/profile/pc_store_b/Rift/sessions'),
      search: await get<SearchResult[]>('/v2/title_c/standard/search?platform=pc_store_c&query=ember'),
    };
  } finally {
    await service.close();
  }
}
