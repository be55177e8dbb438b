import { createHash } from 'node:crypto';

/**
 * What the simulated EKS knows about each Kubernetes minor: the kubelet build its AMIs carry, the AMI ids published
 * in the SSM public parameters, the AMI release version, and the support calendar. Values the seeds show are used
 * verbatim (seed 004: 1.25 AL2 ami-0078a0f78fafda978, 1.26 AL2 ami-086414611b43bb691, Fargate v1.25.16-eks-2d5f260;
 * seed 000: 1.30 AL2023 ami-0f676a166352f02ab, v1.30.14-eks-f69f56f, v1.31.14-eks-ecaa3a6); the rest are
 * deterministic fakes of the same shape, so every run of every scenario sees the same ids.
 */

export type AmiFamily = 'AL2' | 'AL2023' | 'Bottlerocket';
export type AmiArch = 'x86_64' | 'arm64';
/** EKS-optimized AMI variants: the plain image, NVIDIA GPU drivers (AL2 "gpu"), AWS Neuron (Inferentia/Trainium). */
export type AmiVariant = 'standard' | 'nvidia' | 'neuron';

interface MinorFacts {
  patch: string; // last patch EKS ships for the minor, e.g. '1.25.16'
  eksBuild?: string; // 7-hex build suffix of the kubelet version when a seed shows it
  releaseDate: string;
  endOfStandardSupport: string;
  endOfExtendedSupport: string;
}

// Release and end-of-support dates from the EKS Kubernetes version calendar.
const MINORS: Record<string, MinorFacts> = {
  '1.23': { patch: '1.23.17', releaseDate: '2022-08-11', endOfStandardSupport: '2023-10-11', endOfExtendedSupport: '2024-10-11' },
  '1.24': { patch: '1.24.17', releaseDate: '2022-11-15', endOfStandardSupport: '2024-01-31', endOfExtendedSupport: '2025-01-31' },
  '1.25': { patch: '1.25.16', eksBuild: '2d5f260', releaseDate: '2023-02-21', endOfStandardSupport: '2024-05-01', endOfExtendedSupport: '2025-05-01' },
  '1.26': { patch: '1.26.15', eksBuild: '59bf375', releaseDate: '2023-04-11', endOfStandardSupport: '2024-06-11', endOfExtendedSupport: '2025-06-11' },
  '1.27': { patch: '1.27.16', releaseDate: '2023-05-24', endOfStandardSupport: '2024-07-24', endOfExtendedSupport: '2025-07-24' },
  '1.28': { patch: '1.28.15', releaseDate: '2023-09-26', endOfStandardSupport: '2024-11-26', endOfExtendedSupport: '2025-11-26' },
  '1.29': { patch: '1.29.15', releaseDate: '2024-01-23', endOfStandardSupport: '2025-03-23', endOfExtendedSupport: '2026-03-23' },
  '1.30': { patch: '1.30.14', eksBuild: 'f69f56f', releaseDate: '2024-05-23', endOfStandardSupport: '2025-07-23', endOfExtendedSupport: '2026-07-23' },
  '1.31': { patch: '1.31.14', eksBuild: 'ecaa3a6', releaseDate: '2024-09-26', endOfStandardSupport: '2025-11-26', endOfExtendedSupport: '2026-11-26' },
  '1.32': { patch: '1.32.9', releaseDate: '2025-01-23', endOfStandardSupport: '2026-03-23', endOfExtendedSupport: '2027-03-23' },
  '1.33': { patch: '1.33.5', releaseDate: '2025-05-29', endOfStandardSupport: '2026-07-29', endOfExtendedSupport: '2027-07-29' },
  '1.34': { patch: '1.34.1', releaseDate: '2025-10-02', endOfStandardSupport: '2026-12-02', endOfExtendedSupport: '2027-12-02' },
  '1.35': { patch: '1.35.0', releaseDate: '2026-01-27', endOfStandardSupport: '2027-03-27', endOfExtendedSupport: '2028-03-27' },
};

/** AMI ids the seeds print; everything else is derived. */
const SEED_AMIS: Record<string, string> = {
  '1.25/AL2/x86_64': 'ami-0078a0f78fafda978',
  '1.25/AL2023/x86_64': 'ami-0ee947a6f4880da75',
  '1.26/AL2/x86_64': 'ami-086414611b43bb691',
  '1.30/AL2023/x86_64': 'ami-0f676a166352f02ab',
};

/** The AMI build date every simulated release version carries (AL2/AL2023 `<patch>-<yyyymmdd>`). */
export const AMI_BUILD_DATE = '20250715';

export const AMI_FAMILIES: readonly AmiFamily[] = ['AL2', 'AL2023', 'Bottlerocket'];
export const AMI_ARCHES: readonly AmiArch[] = ['x86_64', 'arm64'];

/** Every minor the catalog knows, oldest first. */
export function knownMinors(): string[] {
  return Object.keys(MINORS).sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
}

export function isKnownMinor(minor: string): boolean {
  return minor in MINORS;
}

function facts(minor: string): MinorFacts {
  const found = MINORS[minor];
  if (!found) {
    throw new Error(`version catalog: Kubernetes ${minor} is not simulated; use one of ${knownMinors().join(', ')}`);
  }
  return found;
}

function hex(seed: string, length: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, length);
}

/** Full patch version, e.g. '1.25' → '1.25.16'. */
export function patchVersionFor(minor: string): string {
  return facts(minor).patch;
}

/** status.nodeInfo.kubeletVersion of a node running the EKS-optimized AMI for `minor`, e.g. 'v1.30.14-eks-f69f56f'. */
export function kubeletVersionFor(minor: string): string {
  const f = facts(minor);
  return `v${f.patch}-eks-${f.eksBuild ?? hex(`kubelet-${minor}`, 7)}`;
}

/** The apiserver gitVersion EKS reports for a control plane at `minor` (same build string as its kubelets). */
export function apiServerVersionFor(minor: string): string {
  return kubeletVersionFor(minor);
}

/** Managed node group / SSM release_version of the AMI, e.g. '1.25.16-20250715'. */
export function releaseVersionFor(minor: string, family: AmiFamily = 'AL2'): string {
  const f = facts(minor);
  // Bottlerocket versions its OS independently of Kubernetes (image_version like 1.42.0-8e4f0a0b).
  if (family === 'Bottlerocket') return `1.42.0-${hex(`br-${minor}`, 8)}`;
  return `${f.patch}-${AMI_BUILD_DATE}`;
}

/** AL2 EKS-optimized AMIs stop at Kubernetes 1.32 (eksup EKS008). */
export function isAmiPublished(minor: string, family: AmiFamily): boolean {
  if (!isKnownMinor(minor)) return false;
  if (family === 'AL2') return Number(minor.split('.')[1]) <= 32;
  return true;
}

/** Deterministic EKS-optimized AMI id for (minor, family, arch, variant), e.g. 'ami-0078a0f78fafda978'. */
export function amiIdFor(minor: string, family: AmiFamily, arch: AmiArch = 'x86_64', variant: AmiVariant = 'standard'): string {
  facts(minor);
  if (variant !== 'standard') return `ami-0${hex(`ami-${minor}-${family}-${arch}-${variant}`, 16)}`;
  return SEED_AMIS[`${minor}/${family}/${arch}`] ?? `ami-0${hex(`ami-${minor}-${family}-${arch}`, 16)}`;
}

/**
 * Which variants AWS publishes per family (eks.md): AL2 has a GPU (NVIDIA) image for x86_64 only, AL2023 has
 * NVIDIA and Neuron images, Bottlerocket an NVIDIA one.
 */
export function variantsOf(family: AmiFamily, arch: AmiArch): AmiVariant[] {
  if (family === 'AL2') return arch === 'x86_64' ? ['standard', 'nvidia'] : ['standard'];
  if (family === 'AL2023') return arch === 'x86_64' ? ['standard', 'nvidia', 'neuron'] : ['standard', 'nvidia'];
  return ['standard', 'nvidia'];
}

/** Which minor an EKS-optimized AMI id of this catalog was built for; undefined for ids it never published. */
export function minorOfAmi(amiId: string): string | undefined {
  return describeAmi(amiId)?.minor;
}

/** Reverse lookup of an AMI id: its minor, family and architecture. */
export function describeAmi(amiId: string): { minor: string; family: AmiFamily; arch: AmiArch; variant: AmiVariant } | undefined {
  return amiIndex().get(amiId);
}

let index: Map<string, { minor: string; family: AmiFamily; arch: AmiArch; variant: AmiVariant }> | undefined;
function amiIndex() {
  if (!index) {
    index = new Map();
    for (const minor of knownMinors()) {
      for (const family of AMI_FAMILIES) {
        for (const arch of AMI_ARCHES) {
          for (const variant of variantsOf(family, arch)) index.set(amiIdFor(minor, family, arch, variant), { minor, family, arch, variant });
        }
      }
    }
  }
  return index;
}

export interface SupportCalendar {
  releaseDate: number; // epoch ms
  endOfStandardSupport: number;
  endOfExtendedSupport: number;
}

const DAY_MS = 86_400_000;
const HALF_DAY_MS = DAY_MS / 2;

/**
 * The shift a scenario's `calendarAsOf` gives the support calendar for a simulator starting at `startedAt`: whole
 * days, counted from that date or moment to the start. EKS's support dates are calendar days (the version calendar
 * of the EKS user guide lists days, https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html), and
 * a shifted calendar keeps them so; a shift by the moment would put every date at the simulator's start time of
 * day, where "days left" read a few seconds later by another clock sits on a day's edge.
 */
export function calendarShiftFor(calendarAsOf: string | undefined, startedAt: number): number {
  if (!calendarAsOf) return 0;
  const from = Date.parse(calendarAsOf.includes('T') ? calendarAsOf : `${calendarAsOf}T00:00:00Z`);
  return Math.floor((startedAt - from) / DAY_MS) * DAY_MS;
}

/**
 * The `calendarAsOf` under which a simulator shows `minor`'s end of standard support where a cluster read at
 * `readAt` showed it: half a day before the moment calendarShiftFor would need, so a simulator started up to half a
 * day before or after the reading (another clock, one running fast) shows the same dates, and one started days
 * later moves them with today, as days left do.
 */
export function calendarAsOfShowing(minor: string, endOfStandardSupport: number, readAt: number): string {
  return new Date(supportCalendarFor(minor).endOfStandardSupport - (endOfStandardSupport - readAt) - HALF_DAY_MS).toISOString();
}

/** Support dates of a minor, shifted by `shiftMs` (scenarios move the calendar so a lab's day is "today"). */
export function supportCalendarFor(minor: string, shiftMs = 0): SupportCalendar {
  const f = facts(minor);
  const at = (day: string) => Date.parse(`${day}T00:00:00Z`) + shiftMs;
  return {
    releaseDate: at(f.releaseDate),
    endOfStandardSupport: at(f.endOfStandardSupport),
    endOfExtendedSupport: at(f.endOfExtendedSupport),
  };
}

/** Next minor ('1.30' → '1.31'). */
export function nextMinor(minor: string): string {
  const [major, m] = minor.split('.');
  return `${major}.${Number(m) + 1}`;
}

/** Compares two minors numerically: negative when a < b. */
export function compareMinors(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

// Latest EKS platform version per minor (seed 004: a 1.25 cluster on eks.44).
const LATEST_PLATFORM: Record<string, number> = {
  '1.23': 50, '1.24': 46, '1.25': 44, '1.26': 45, '1.27': 40, '1.28': 37, '1.29': 30,
  '1.30': 28, '1.31': 24, '1.32': 13, '1.33': 6, '1.34': 3, '1.35': 1,
};

/** The platform version a cluster of this minor runs once EKS has rolled it forward, e.g. 'eks.44'. */
export function latestPlatformVersionFor(minor: string): string {
  facts(minor);
  return `eks.${LATEST_PLATFORM[minor] ?? 1}`;
}
