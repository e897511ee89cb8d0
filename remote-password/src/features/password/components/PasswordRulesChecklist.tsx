import { CheckCircleFilled, CloseCircleOutlined } from 'shared-ui';
import { PASSWORD_RULE_IDS, PASSWORD_RULE_MESSAGES } from 'shared-auth';
import type { RuleResults } from '../model/rulesAnnouncement.js';
import { visuallyHidden } from './visuallyHidden.js';

// Colours with at least 4.5:1 on white; the icon's shape (tick or cross) and the hidden text carry the meaning.
const MET_COLOUR = '#237804';
const UNMET_COLOUR = '#a50d26';
const NOT_STARTED_COLOUR = '#595959';

interface PasswordRulesChecklistProps {
  /** The checklist's id: the New Password field names it in aria-describedby. */
  id: string;
  results: RuleResults;
  /** Whether anything was typed: until then unmet rules are shown neutral, not as failures. */
  started: boolean;
}

/** The live checklist under New Password: every rule of the shared policy, each marked met or not met. */
export function PasswordRulesChecklist({ id, results, started }: PasswordRulesChecklistProps) {
  return (
    // The field's aria-describedby names this wrapper; a labelled list inside would be described by its label
    // only, so the list takes its name from aria-labelledby, which description text ignores.
    <div id={id}>
      <span id={`${id}-label`} style={visuallyHidden}>
        Password rules
      </span>
      <ul aria-labelledby={`${id}-label`} style={{ listStyle: 'none', margin: '8px 0 0', padding: 0 }}>
        {PASSWORD_RULE_IDS.map((rule) => {
          const met = results[rule];
          return (
            <li
              key={rule}
              data-rule={rule}
              style={{ display: 'flex', alignItems: 'center', gap: 8, lineHeight: '24px', color: 'inherit' }}
            >
              {met ? (
                <CheckCircleFilled aria-hidden="true" style={{ color: MET_COLOUR }} />
              ) : (
                <CloseCircleOutlined
                  aria-hidden="true"
                  style={{ color: started ? UNMET_COLOUR : NOT_STARTED_COLOUR }}
                />
              )}
              <span>
                {PASSWORD_RULE_MESSAGES[rule]}
                <span style={visuallyHidden}>{met ? ', met' : ', not met'}</span>
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
