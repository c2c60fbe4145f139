/** The default plan catalogue of D2 (INR, amounts in paise; annual = 12 months upfront). */
export interface PlanLimits {
  sessions: number;
  messagesPerMonth: number;
  contacts: number;
  apiRequestsPerDay: number;
  webhooks: number;
  teamSeats: number;
  campaigns: boolean;
}

export interface Plan {
  id: "free" | "starter" | "growth" | "pro";
  name: string;
  currency: "INR";
  monthlyPaise: number;
  annualPaise: number;
  limits: PlanLimits;
}

export const DEFAULT_PLANS: readonly Plan[] = [
  {
    id: "free", name: "Free", currency: "INR", monthlyPaise: 0, annualPaise: 0,
    limits: { sessions: 1, messagesPerMonth: 1_000, contacts: 500, apiRequestsPerDay: 1_000, webhooks: 1, teamSeats: 1, campaigns: false },
  },
  {
    id: "starter", name: "Starter", currency: "INR", monthlyPaise: 999_00, annualPaise: 9_990_00,
    limits: { sessions: 1, messagesPerMonth: 10_000, contacts: 5_000, apiRequestsPerDay: 10_000, webhooks: 3, teamSeats: 3, campaigns: true },
  },
  {
    id: "growth", name: "Growth", currency: "INR", monthlyPaise: 2_499_00, annualPaise: 24_990_00,
    limits: { sessions: 3, messagesPerMonth: 50_000, contacts: 25_000, apiRequestsPerDay: 50_000, webhooks: 10, teamSeats: 5, campaigns: true },
  },
  {
    id: "pro", name: "Pro", currency: "INR", monthlyPaise: 5_999_00, annualPaise: 59_990_00,
    limits: { sessions: 10, messagesPerMonth: 250_000, contacts: 100_000, apiRequestsPerDay: 250_000, webhooks: 25, teamSeats: 15, campaigns: true },
  },
];

/** The plan of an id (throws on an unknown id: the catalogue is validated at start). */
export function planById(id: string, plans: readonly Plan[] = DEFAULT_PLANS): Plan {
  const p = plans.find((x) => x.id === id);
  if (!p) throw new Error(`unknown plan ${id}`);
  return p;
}
